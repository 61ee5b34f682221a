/**
 * vitest globalSetup: installs test/'s packages when missing or stale (scripts/tool-folder.js), and runs `npm run build` when a file dist/ is made from is newer than dist/. Spawned
 * commands (bin/run.js), commands run in process (run-command.ts), the lock's racers and the packed tarball
 * all run dist/: `npm test` builds first, and so must `npx vitest run <file>`, or it tests stale code.
 * Up to date, it costs a look at some 300 files' times.
 */
import {execFile} from 'node:child_process'
import {readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {toolFolder} from '../../scripts/tool-folder.js'
import {ROOT} from './cli.js'

/** What `npm run build` reads (package.json: oclif's manifest; scripts: what makes it, the lean entry and the bundles). */
const INPUTS = [
  'src',
  'scripts/oclif-manifest.js',
  'scripts/lean-entry.js',
  'scripts/serve-bundle.js',
  'scripts/cjs-bundle.js',
  'scripts/declarations.js',
  'package.json',
  'tsconfig.json',
]
/**
 * What it writes, a file of each step after tsc that every build rewrites (tsc leaves its outputs, and its
 * build info, as they were when their sources did not change): the manifest, the lean entry, serve's bundle
 * and the CommonJS build. A build that failed half way leaves the later ones older than its inputs.
 */
const OUTPUTS = ['oclif.manifest.json', 'dist/cli/lean-entry.cjs', 'dist/serve/run.js', 'dist/cjs/testing.js']

function newest(path: string): number {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))))
}

function oldest(paths: string[]): number {
  try {
    return Math.min(...paths.map((path) => statSync(path).mtimeMs))
  } catch {
    // an output missing: never built, or a build that failed half way
    return 0
  }
}

export default async function setup(): Promise<void> {
  const at = (path: string) => join(ROOT, path)
  // what the tests drive, installed by npm test's pretest; here too for `npx vitest run` alone
  await toolFolder(at('test'), (text) => console.error(text))
  if (Math.max(...INPUTS.map((path) => newest(at(path)))) < oldest(OUTPUTS.map(at))) return
  try {
    await promisify(execFile)('npm', ['run', '-s', 'build'], {cwd: ROOT, maxBuffer: 16 * 1024 * 1024})
  } catch (error) {
    const {stdout, stderr} = error as {stdout: string; stderr: string}
    throw new Error(`npm run build failed, so dist/ would be stale:\n${stdout}${stderr}`)
  }
}
