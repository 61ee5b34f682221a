import type * as z from 'zod'

/** A field that is there (`'status'`), or fields with these values (`{reset: true}`). */
type Condition = string | Record<string, string | number | boolean>

/**
 * A rule across an object's fields, in JSON Schema's words: `anyOf`, at least one of the conditions holds;
 * `not`, they do not all hold together; with `if`, only where that condition holds. A body that breaks it is
 * told `message`, at the field `path` names.
 */
export type FieldRule = ({anyOf: Condition[]} | {not: Condition[]}) & {if?: Condition; message: string; path: string[]}

const holds = (value: Record<string, unknown>, condition: Condition): boolean =>
  typeof condition === 'string'
    ? value[condition] !== undefined
    : Object.entries(condition).every(([field, wanted]) => value[field] === wanted)

/** The JSON Schema that holds where all the conditions do; it defines each field it requires, as linters ask. */
function jsonSchemaOf(conditions: Condition[]): object {
  const properties: Record<string, object> = {}
  for (const condition of conditions) {
    if (typeof condition === 'string') properties[condition] = {}
    else for (const [field, wanted] of Object.entries(condition)) properties[field] = {const: wanted}
  }
  return {required: Object.keys(properties), properties}
}

/**
 * `schema` with rules across its fields, each declared once: the server refines by it, and the OpenAPI
 * document gives it beside the object's own schema (`allOf`), so the document takes no body the server
 * refuses for it (docs/api.md, "The OpenAPI document").
 *
 * @example
 * const Either = withRules(z.strictObject({a: z.int().optional(), b: z.boolean().optional()}), [
 *   {anyOf: ['a', {b: true}], message: 'give a, or b: true', path: ['a']},
 * ])
 * Either.safeParse({b: false}).success // false
 */
export function withRules<S extends z.ZodObject>(schema: S, rules: FieldRule[]): S {
  const refined = rules.reduce((object, rule) => {
    const check = (value: Record<string, unknown>) =>
      (rule.if !== undefined && !holds(value, rule.if)) ||
      ('anyOf' in rule ? rule.anyOf.some((c) => holds(value, c)) : !rule.not.every((c) => holds(value, c)))
    return object.refine(check, {message: rule.message, path: rule.path})
  }, schema)
  const json = rules.map((rule) => {
    const then = 'anyOf' in rule ? {anyOf: rule.anyOf.map((c) => jsonSchemaOf([c]))} : {not: jsonSchemaOf(rule.not)}
    return rule.if === undefined ? then : {if: jsonSchemaOf([rule.if]), then}
  })
  return refined.meta({allOf: json})
}
