/**
 * The package as a user gets it: `npm pack`, installed into a fresh project. It packs the `dist/` that the run
 * built (test/helpers/build-setup.ts), with `--ignore-scripts`: `prepack` (clean, then build) runs on a real
 * `npm pack` or publish, and would here delete `dist/` under the other tests' feet.
 */
import {execFile} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'
import {mkdir, readdir, readFile, readlink, rename, rm, symlink, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {ROOT} from './cli.js'
import {testCache} from './temp-dirs.js'

export const run = promisify(execFile)
const npm = (args: string[], cwd: string) => run('npm', args, {cwd, maxBuffer: 64 * 1024 * 1024})

const INSTALL_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts']

/** The version of `name` this repository installed. */
export const versionOf = async (name: string) =>
  (JSON.parse(await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {version: string}).version

/**
 * A folder where npm installed `packages`, kept in the temp dir from one run to the next under `name`:
 * an install cost the run seconds of CPU, most of it writing the same few thousand files again.
 */
export async function cachedInstall(name: string, packages: string[]): Promise<string> {
  const path = testCache(name)
  if (existsSync(path)) return path
  // installed aside and renamed, so a run beside this one never sees half an install
  const temp = `${path}.${process.pid}.tmp`
  await mkdir(temp, {recursive: true})
  await writeFile(join(temp, 'package.json'), '{"private": true}')
  await npm(['install', ...packages, ...INSTALL_FLAGS], temp)
  // a run beside this one that renamed its install first keeps it
  await rename(temp, path).catch(() => rm(temp, {recursive: true, force: true}))
  return path
}

/** The compiler of this repository's TypeScript. */
export const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')

/** The errors `tsc` (a compiler's bin, TSC by default) prints with `args` in `cwd`: '' when it passes. */
export const tscErrors = (cwd: string, args: string[], tsc = TSC): Promise<string> =>
  run(process.execPath, [tsc, ...args], {cwd}).then(
    () => '',
    (error: {stdout: string}) => error.stdout,
  )

/** The package packed into `dir`: the tarball's path and the paths inside it. */
export async function pack(dir: string): Promise<{tarball: string; files: string[]}> {
  const {stdout} = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT)
  const [packed] = JSON.parse(stdout) as [{filename: string; files: {path: string}[]}]
  return {tarball: join(dir, packed.filename), files: packed.files.map((file) => file.path)}
}

/**
 * A fresh project at `project` ("type": "module") with the `tarball` installed and what a user adds next to
 * it, `peers`. The tree npm makes of the tarball's dependencies and the peers is kept (cachedInstall), named
 * for what it is made from: the tarball's dependencies and the peers' versions; so npm resolves the peers
 * against the package's ranges, as a user's install does. The project links npm's tree, its bin links
 * included, and gets the package itself from this run's tarball, as npm extracts it.
 */
export async function installInto(project: string, tarball: string, peers: string[]): Promise<void> {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>
  const from = ['dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta'].map((k) => pkg[k])
  const hash = createHash('sha256')
    .update(JSON.stringify([from, peers]))
    .digest('hex')
    .slice(0, 16)
  const tree = join(await cachedInstall(`consumer-${hash}`, [tarball, ...peers]), 'node_modules')
  await mkdir(join(project, 'node_modules', '.bin'), {recursive: true})
  await writeFile(join(project, 'package.json'), JSON.stringify({name: 'consumer', private: true, type: 'module'}))
  for (const name of await readdir(tree))
    if (name !== 'tablepay' && name !== '.bin') await symlink(join(tree, name), join(project, 'node_modules', name))
  // npm's links are relative (../tablepay/bin/run.js): here they reach this project's packages
  for (const name of await readdir(join(tree, '.bin')))
    await symlink(await readlink(join(tree, '.bin', name)), join(project, 'node_modules', '.bin', name))
  const installed = join(project, 'node_modules', 'tablepay')
  await mkdir(installed)
  await run('tar', ['-xzf', tarball, '--strip-components=1', '-C', installed])
}
