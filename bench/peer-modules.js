// The bench's own packages: WireMock, json-server and autocannon
// (bench/.peers/package.json). npm ci installs them into bench/.peers the
// first time a bench run needs one, and again when their lockfile changes,
// so that a clone's `npm install` does not bring them.
import {execFile} from 'node:child_process'
import {createHash} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {promisify} from 'node:util'
import {progress} from './report.js'

const DIR = fileURLToPath(new URL('.peers', import.meta.url))
const MODULES = join(DIR, 'node_modules')
/** The hash of the lockfile the installed modules came from. */
const STAMP = join(MODULES, '.lock-sha256')

/** @type {Promise<string> | undefined} */
let installed

/** bench/.peers/node_modules, installed first when it is missing or came from another lockfile. */
function peerModules() {
  installed ??= install()
  return installed
}

async function install() {
  const lock = createHash('sha256')
    .update(readFileSync(join(DIR, 'package-lock.json')))
    .digest('hex')
  if (readStamp() === lock) return MODULES
  progress('installing the bench peers into bench/.peers (npm ci)')
  try {
    await promisify(execFile)('npm', ['ci', '--no-audit', '--no-fund'], {cwd: DIR, maxBuffer: 16 * 2 ** 20})
  } catch (error) {
    throw new Error(`bench: npm ci in ${DIR} failed:\n${error.stderr}`)
  }
  writeFileSync(STAMP, lock)
  return MODULES
}

function readStamp() {
  try {
    return readFileSync(STAMP, 'utf8')
  } catch {
    return undefined
  }
}

/** The path of a file of peer package `name`, e.g. `peerPath('json-server', 'lib', 'bin.js')`. */
export async function peerPath(name, ...file) {
  return join(await peerModules(), name, ...file)
}

/** Peer package `name`, imported from its main module. */
export async function importPeer(name) {
  const require = createRequire(join(DIR, 'package.json'))
  await peerModules()
  return import(pathToFileURL(require.resolve(name)).href)
}
