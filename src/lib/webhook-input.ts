import {readFile} from 'node:fs/promises'
import {buffer} from 'node:stream/consumers'
import {Errors, Flags} from '@oclif/core'

// verify and sign are pure local tools that must start close to bare Node:
// this module, like them, imports only @oclif/core and node built-ins
// (pinned by test/commands/verify.test.ts).
/** `--secret` and `--payload`, the same in `verify` and `sign`. */
export const webhookFlags = {
  secret: Flags.string({
    char: 's',
    env: 'TABLEPAY_WEBHOOK_SECRET',
    helpValue: 'whsec_…',
    summary: 'The endpoint\'s signing secret. Prefer the environment variable: arguments show in the process list.',
  }),
  payload: Flags.string({char: 'p', helpValue: 'FILE', summary: 'File with the body, byte for byte; - or no flag reads stdin.'}),
}

/** The secret from the flag or the environment, or a CLI error saying where to get one. */
export function requireSecret(secret: string | undefined): string {
  if (secret) return secret
  throw new Errors.CLIError('No signing secret: pass --secret whsec_… or set TABLEPAY_WEBHOOK_SECRET.', {
    exit: 1,
    code: 'missing_secret',
    suggestions: ['The secret is in the answer that created the webhook endpoint, and only there.'],
  })
}

/**
 * The body's raw bytes, from a file or stdin. Never decoded or parsed: one
 * changed byte changes the signature.
 */
export async function readRawPayload(file: string | undefined): Promise<Buffer> {
  const fromStdin = file === undefined || file === '-'
  // Waiting on a terminal would look like a hang when --payload was forgotten.
  if (fromStdin && process.stdin.isTTY) {
    throw new Errors.CLIError('No payload: pass --payload FILE, or pipe the body on stdin.', {exit: 1, code: 'missing_input'})
  }
  try {
    return fromStdin ? await buffer(process.stdin) : await readFile(file)
  } catch (error) {
    throw new Errors.CLIError(`Cannot read ${fromStdin ? 'stdin' : file}: ${(error as Error).message}`, {exit: 1, code: 'unreadable_input'})
  }
}
