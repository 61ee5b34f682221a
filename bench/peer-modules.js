// The bench's own packages (bench/.peers/package.json): WireMock,
// json-server, autocannon, Prism and PostgreSQL, installed the first time a
// bench run needs one (scripts/tool-folder.js), not by a clone's `npm install`.
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {toolFolder} from '../scripts/tool-folder.js'
import {progress} from './report.js'

const DIR = fileURLToPath(new URL('.peers', import.meta.url))

/** bench/.peers/node_modules, installed first when it is missing or came from another lockfile. */
const peerModules = () => toolFolder(DIR, progress)

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
