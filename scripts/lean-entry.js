// The lean path of bin/run.js (src/cli/lean-entry.ts), made at build:
// - dist/cli/lean-entry.cjs: the lean entry and all it imports, bundled into
//   one CommonJS file: loading a dozen ES modules cost `verify` about 8 ms of
//   a start of about 70 (docs/benchmarks.md, "The lean path");
// - dist/cli/lean-entry.inputs.json: the modules in that bundle;
// - dist/cli/lean-flags.json: the flags of the commands it runs without
//   oclif, cut from oclif.manifest.json (parsing the whole manifest cost 2 ms),
//   and the plugins that change nothing in their runs.
import {readFileSync, writeFileSync} from 'node:fs'
import {buildSync} from 'esbuild'

const LEAN = ['verify', 'sign', 'serve']
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'))
const manifest = readJson('oclif.manifest.json')
// only what the lean entry reads of a flag (ManifestFlag): no help texts
const KEPT = ['name', 'type', 'char', 'aliases', 'env', 'default']
const slim = (flag) => Object.fromEntries(KEPT.filter((key) => key in flag).map((key) => [key, flag[key]]))
const flagsOf = (id) =>
  Object.fromEntries(Object.entries(manifest.commands[id].flags).map(([name, f]) => [name, slim(f)]))
// oclif writes a flag's `defaultHelp` into the manifest as its default: the lean path would run with that text
const helpDefaults = LEAN.flatMap((id) =>
  Object.values(manifest.commands[id].flags).flatMap((flag) => (flag.hasDynamicHelp ? [`${id} --${flag.name}`] : [])),
)
if (helpDefaults.length > 0)
  throw new Error(`${helpDefaults.join(', ')}: no defaultHelp on a command the lean path runs`)
const commands = Object.fromEntries(LEAN.map((id) => [id, {flags: flagsOf(id)}]))
// a plugin that hooks only its own installs (`plugins:postinstall`, as @oclif/plugin-autocomplete) and has
// none of these commands changes nothing in their runs: the lean path may run them beside it, and no other
const harmless = (name) => {
  const hooks = readJson(`node_modules/${name}/package.json`).oclif?.hooks ?? {}
  const theirs = readJson(`node_modules/${name}/oclif.manifest.json`).commands
  return Object.keys(hooks).every((event) => event.startsWith('plugins:')) && LEAN.every((id) => !(id in theirs))
}
const plugins = (readJson('package.json').oclif?.plugins ?? []).filter(harmless)
writeFileSync('dist/cli/lean-flags.json', JSON.stringify({version: manifest.version, commands, plugins}))

const {metafile} = buildSync({
  entryPoints: ['dist/cli/lean-entry.js'],
  outfile: 'dist/cli/lean-entry.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // packages stay requires: oclif loads only when the lean path gives way to it, and a package the
  // lean path would load shows (test/cli/lean-entry.test.ts)
  packages: 'external',
  metafile: true,
  logLevel: 'warning',
})
// what went into the bundle, for the same test
writeFileSync('dist/cli/lean-entry.inputs.json', JSON.stringify(Object.keys(metafile.inputs)))
