/**
 * `instanceof` across the package's two copies. Code loaded by both `import` and `require` runs once per
 * format (ARCHITECTURE.md, "Two module formats"), so each exported error class exists twice; a brand, a
 * symbol of the global registry that both copies get from `Symbol.for`, is what they share. A class's
 * prototype carries its brand, so an instance carries those of its class and of every class above it.
 */
type Class = abstract new (...args: never[]) => object

/** This copy's classes and their brands: a subclass without a brand of its own (a user's) inherits none. */
const brands = new WeakMap<Class, symbol>()

function hasBrand(this: Class, value: unknown): boolean {
  const brand = brands.get(this)
  if (brand === undefined) return Function.prototype[Symbol.hasInstance].call(this, value)
  return typeof value === 'object' && value !== null && brand in value
}

/**
 * Makes `value instanceof Class` hold for an instance of the class, or of a subclass, from either format's
 * copy: `Symbol.for('tablepay.' + name)` brands them. `name` is written out rather than read from
 * `Class.name`, which a bundler may rename.
 *
 * @example
 * class TablepayError extends Error {
 *   static {
 *     brand(this, 'TablepayError')
 *   }
 * }
 */
export function brand(Class: Class, name: string): void {
  const symbol = Symbol.for(`tablepay.${name}`)
  brands.set(Class, symbol)
  Object.defineProperty(Class.prototype, symbol, {value: true})
  Object.defineProperty(Class, Symbol.hasInstance, {value: hasBrand})
}
