// Writes dist/cli/lean-flags.json: the flags of the commands bin/run.js runs
// without oclif (src/cli/lean-entry.ts), cut from oclif.manifest.json. Parsing
// the whole manifest is a measurable part of `verify`'s start (docs/benchmarks.md).
import {readFileSync, writeFileSync} from 'node:fs'

const LEAN = ['verify', 'sign']
const manifest = JSON.parse(readFileSync('oclif.manifest.json', 'utf8'))
const commands = Object.fromEntries(LEAN.map((id) => [id, {flags: manifest.commands[id].flags}]))
writeFileSync('dist/cli/lean-flags.json', JSON.stringify({version: manifest.version, commands}))
