import {createReadStream} from 'node:fs'
import {access} from 'node:fs/promises'
import {isAbsolute, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {readAtMost, SNAPSHOT_BODY_LIMIT} from './read-at-most.js'

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
  return readText(createReadStream((await findFile(path)) ?? path))
}

/**
 * The text of `stream` (a file, stdin), which fails past the largest body a request takes: a file named by
 * mistake (`/dev/urandom`) ends the read, where reading on would fill the memory, then fail on the string's length.
 */
export async function readText(stream: NodeJS.ReadableStream): Promise<string> {
  const bytes = await readAtMost(stream, SNAPSHOT_BODY_LIMIT)
  if (!bytes) throw new Error(`it holds more than ${SNAPSHOT_BODY_LIMIT / 1024 ** 2} MiB, more than any request takes`)
  return bytes.toString('utf8')
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  )
