import {readFileSync} from 'node:fs'
import {cliError} from '../cli-error.js'

// verify and sign are pure local tools that must start close to bare Node:
// this module, like their logic, imports node built-ins only (pinned by
// test/cli/lean-entry.test.ts), and only those already loaded at start
// (node:fs; not fs/promises or stream/consumers, docs/benchmarks.md).

/** The secret from the flag or the environment, or a CLI error saying where to get one. */
export async function requireSecret(secret: string | undefined): Promise<string> {
  if (secret) return secret
  // a wrong command line, as a missing required flag is: exit 2 (docs/cli.md, "Flags and exit codes")
  throw await cliError('No signing secret: pass --secret whsec_… or set TABLEPAY_WEBHOOK_SECRET.', {
    code: 'missing_secret',
    exit: 2,
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
    throw await cliError('No payload: pass --payload FILE, or pipe the body on stdin.', {
      code: 'missing_input',
      exit: 2,
    })
  }
  try {
    return fromStdin ? await readAll(process.stdin) : readFileSync(file)
  } catch (error) {
    throw await cliError(`Cannot read ${fromStdin ? 'stdin' : file}: ${(error as Error).message}`, {
      code: 'unreadable_input',
    })
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks)
}
