// The lean path of bin/run.js (src/cli/lean-entry.ts), made at build:
// - dist/cli/lean-entry.cjs: the lean entry and all it imports, bundled into
//   one CommonJS file: loading a dozen ES modules cost `verify` about 8 ms of
//   a start of about 70 (docs/benchmarks.md, "The lean path");
// - dist/cli/lean-entry.inputs.json: the modules in that bundle;
// - dist/cli/lean-flags.json: the flags of the commands it runs without
//   oclif, cut from oclif.manifest.json (parsing the whole manifest cost 2 ms).
import {readFileSync, writeFileSync} from 'node:fs'
import {buildSync} from 'esbuild'

const LEAN = ['verify', 'sign', 'serve']
const manifest = JSON.parse(readFileSync('oclif.manifest.json', 'utf8'))
// only what the lean entry reads of a flag (ManifestFlag): no help texts
const KEPT = ['name', 'type', 'char', 'aliases', 'env', 'default']
const slim = (flag) => Object.fromEntries(KEPT.filter((key) => key in flag).map((key) => [key, flag[key]]))
const flagsOf = (id) =>
  Object.fromEntries(Object.entries(manifest.commands[id].flags).map(([name, f]) => [name, slim(f)]))
const commands = Object.fromEntries(LEAN.map((id) => [id, {flags: flagsOf(id)}]))
writeFileSync('dist/cli/lean-flags.json', JSON.stringify({version: manifest.version, commands}))

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
