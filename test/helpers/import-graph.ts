import {readFileSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {ROOT} from './cli.js'

/**
 * Every module loading a built file loads, following its static imports:
 * the local files (relative to dist/), and the packages (not followed) by
 * name. An `import()` is left out: it loads only when the code reaching it
 * runs (as `sign` loads its spinner only to wait for `--forward-to`).
 *
 * @example
 * importGraph('dist/commands/verify.js').packages // ['@oclif/core']
 */
export function importGraph(entry: string): {files: string[]; packages: string[]} {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (files.has(file)) return
    files.add(file)
    // comments may quote imports (JSDoc examples): not loaded
    const source = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '')
    for (const [, specifier] of source.matchAll(/(?:\bfrom\s*|\bimport\s*)['"]([^'"]+)['"]/g)) {
      if (specifier!.startsWith('.')) visit(join(dirname(file), specifier!))
      else if (!specifier!.startsWith('node:'))
        packages.add(
          specifier!
            .split('/')
            .slice(0, specifier!.startsWith('@') ? 2 : 1)
            .join('/'),
        )
    }
  }
  visit(join(ROOT, entry))
  return {files: [...files].map((f) => relative(join(ROOT, 'dist'), f)).sort(), packages: [...packages].sort()}
}
