#!/usr/bin/env node
// verify and sign start close to bare Node: the lean entry runs them without
// loading oclif, unless the command line needs oclif (help, a flag error…).
import {runLean} from '../dist/cli/lean-entry.js'

if (!(await runLean(process.argv.slice(2)))) {
  const {execute} = await import('@oclif/core')
  await execute({dir: import.meta.url})
}
