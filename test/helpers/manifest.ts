import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {ExitCodes} from '../../src/cli/exit-codes.js'
import {ROOT} from './cli.js'

/** A command as oclif.manifest.json records it: what the tests of every command read. */
export interface ManifestCommand {
  summary?: string
  description?: string
  examples?: unknown[]
  args?: Record<string, unknown>
  flags: Record<string, {type: string; options?: string[]; helpValue?: string; default?: unknown}>
  exitCodes?: ExitCodes
}

/** Every command of the built CLI by its id (`checks:push`), as `npm run build` writes the manifest. */
export const manifestCommands = (): [id: string, command: ManifestCommand][] =>
  Object.entries(JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')).commands)
