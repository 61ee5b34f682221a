#!/usr/bin/env node
// CommonJS (bin/package.json), so that verify and sign start close to bare
// Node: the lean entry, one bundled file (scripts/lean-entry.js), runs them
// without loading oclif, or the ES module loader, unless the command line
// needs oclif (help, a flag error…): docs/benchmarks.md, "The lean path".
const {join} = require('node:path')
const {handleFailure, runLean} = require('../dist/cli/lean-entry.cjs')

const root = join(__dirname, '..')
runLean(process.argv.slice(2), root).then(async (handled) => {
  if (handled) return
  const {run, settings} = await import('@oclif/core')
  // the package ships compiled JavaScript: with NODE_ENV test or development (jest, vitest) oclif would
  // otherwise load TypeScript, ~0.5 s, to look for sources that are not there (docs/benchmarks.md, "The lean path")
  settings.enableAutoTranspile = false
  // oclif's execute, but a failure exits only once a pipe has taken all of stdout and stderr
  // (src/cli/handle-failure.ts); the package's root, not this folder: its package.json only makes this file CommonJS
  await run(process.argv.slice(2), root).catch(handleFailure)
})
