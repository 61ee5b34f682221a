import {access, readFile} from 'node:fs/promises'
import {isAbsolute, join} from 'node:path'
import {fileURLToPath} from 'node:url'

/** The package's own folder: `fixtures/` ships in it. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * `path` as given when it exists; else, for a relative path, the same path in
 * the package when it is there: so `fixtures/seed.json` names the example
 * seed in a project that installed tablepay as well as in its own repo
 * (docs/api.md, "Seeding and keys"). Undefined when neither exists.
 *
 * @example
 * await findFile('fixtures/seed.json') // '/app/node_modules/tablepay/fixtures/seed.json' in a project
 */
export async function findFile(path: string): Promise<string | undefined> {
  // an empty path (`-f "$FILE"` with FILE unset) names no file: joined to the package's folder, it named that folder
  if (path === '') return undefined
  if (await exists(path)) return path
  if (isAbsolute(path)) return undefined
  const packaged = join(PACKAGE_ROOT, path)
  return (await exists(packaged)) ? packaged : undefined
}

/**
 * The text of the file `findFile` finds for `path`; a file found nowhere
 * fails as `readFile(path)` does, naming `path` as given.
 *
 * @example
 * const text = await readFound('fixtures/checks/open.json')
 */
export async function readFound(path: string): Promise<string> {
  return readFile((await findFile(path)) ?? path, 'utf8')
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  )
