import {readFileSync} from 'node:fs'
import {join, posix} from 'node:path'

/** `import|export … from 'x'` statements (not those a doc comment shows), and `import('x')`. */
const IMPORTS = /^(?:import|export)\b[^;]*?\bfrom\s+['"]([^'"]+)['"]|\bimport\(['"]([^'"]+)['"]\)/gm

/**
 * The declaration files that `entries` (paths of `.d.ts` files under `root`) reach through relative imports,
 * and the packages they import. tsc writes `./x.js` for the declarations `./x.d.ts`.
 *
 * @example
 * declarationsReached('dist', ['index.d.ts']) // {files: ['index.d.ts', 'webhooks/signature.d.ts'], packages: []}
 */
export function declarationsReached(root, entries) {
  const files = new Set()
  const packages = new Set()
  const queue = entries.map((entry) => posix.normalize(entry))
  while (queue.length > 0) {
    const file = queue.pop()
    if (files.has(file)) continue
    files.add(file)
    for (const [, statement, inline] of readFileSync(join(root, file), 'utf8').matchAll(IMPORTS)) {
      const specifier = statement ?? inline
      if (!specifier.startsWith('.')) packages.add(specifier)
      else queue.push(posix.join(posix.dirname(file), specifier.replace(/\.js$/, '.d.ts')))
    }
  }
  return {files: [...files].sort(), packages: [...packages].sort()}
}
