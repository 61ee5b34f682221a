// Packages a clone's `npm install` does not bring, each folder with its own
// package.json and lockfile: test/ (what the tests drive: PostgreSQL,
// Chromium, Prism, spectral, redocly, stripe) and bench/.peers (the bench's
// peers). `npm ci` installs a folder the first time it is needed and again
// when its lockfile changes, so a clone stays light (CONTRIBUTING.md, "Tests").
// `node scripts/tool-folder.js test` installs test/ (npm test's pretest does).
import {execFile} from 'node:child_process'
import {createHash} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {promisify} from 'node:util'

/** @type {Map<string, Promise<string>>} */
const installing = new Map()

/**
 * `dir`'s node_modules, installed first (`npm ci`) when missing or made from
 * another lockfile. `say` is told when an install starts.
 *
 * @example
 * const modules = await toolFolder('bench/.peers', (text) => console.error(text))
 *
 * @param {string} dir
 * @param {(text: string) => void} [say]
 * @returns {Promise<string>}
 */
export function toolFolder(dir, say = () => {}) {
  const key = resolve(dir)
  if (!installing.has(key)) installing.set(key, install(key, say))
  return /** @type {Promise<string>} */ (installing.get(key))
}

/** @param {string} dir @param {(text: string) => void} say */
async function install(dir, say) {
  const modules = join(dir, 'node_modules')
  // the hash of the lockfile the installed modules came from
  const stamp = join(modules, '.lock-sha256')
  const lock = createHash('sha256')
    .update(readFileSync(join(dir, 'package-lock.json')))
    .digest('hex')
  if (readOr(stamp) === lock) return modules
  say(`installing ${dir}'s packages (npm ci)`)
  try {
    await promisify(execFile)('npm', ['ci', '--no-audit', '--no-fund'], {cwd: dir, maxBuffer: 16 * 2 ** 20})
  } catch (error) {
    throw new Error(`npm ci in ${dir} failed:\n${/** @type {{stderr?: string}} */ (error).stderr ?? error}`)
  }
  writeFileSync(stamp, lock)
  return modules
}

/** @param {string} path */
function readOr(path) {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url))
  for (const dir of process.argv.slice(2)) await toolFolder(join(root, dir), (text) => console.error(text))
}
