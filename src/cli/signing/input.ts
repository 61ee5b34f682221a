import {createReadStream} from 'node:fs'
import {readAtMost, stdinToRead} from '../../shared/read-at-most.js'
import {cliError, unreadable} from '../cli-error.js'

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
    suggestions: [
      "An endpoint's secret is in the answer that created it (or rotated it); `tablepay listen --print-secret` prints listen's.",
    ],
  })
}

/**
 * The body's raw bytes, from a file or stdin. Never decoded or parsed: one
 * changed byte changes the signature. `refuseBlank`: an empty body, or one of
 * whitespace only (`echo "$BODY"` with BODY unset), is no input, as `checks
 * push` takes it (read-json.ts); `verify` reports on one instead.
 */
export async function readRawPayload(file: string | undefined, {refuseBlank = false} = {}): Promise<Buffer> {
  const fromStdin = file === undefined || file === '-'
  // Waiting on a terminal would look like a hang when --payload was forgotten.
  if (fromStdin && process.stdin.isTTY) throw await missingPayload('No payload')
  const source = fromStdin ? 'stdin' : file
  let payload: Buffer | undefined
  try {
    payload = await readAtMost(fromStdin ? stdinToRead() : createReadStream(file), PAYLOAD_MOST)
  } catch (error) {
    throw await unreadable(fromStdin ? undefined : file, error, ', or pipe the body on stdin')
  }
  if (payload && refuseBlank && isBlank(payload)) throw await missingPayload(`${source} is empty`)
  if (payload) return payload
  throw await cliError(
    `${source} holds more than ${PAYLOAD_MOST / 1024 ** 2} MiB, far more than any delivery's body.`,
    {
      code: 'unreadable_input',
      exit: 2,
      suggestions: ['Pass the raw body of one delivery: --payload FILE, or pipe it on stdin.'],
    },
  )
}

/** No payload to read: a wrong command line, as a missing required flag is (docs/cli.md, "Flags and exit codes"). */
const missingPayload = (why: string): Promise<Error> =>
  cliError(`${why}: pass --payload FILE, or pipe the body on stdin.`, {code: 'missing_input', exit: 2})

// JSON's whitespace: space, tab, LF, CR
const isBlank = (payload: Buffer): boolean => payload.every((byte) => [0x20, 0x09, 0x0a, 0x0d].includes(byte))

/** The most a payload is read: past any delivery's body, so that a /dev/zero given by mistake ends. */
const PAYLOAD_MOST = 64 * 1024 ** 2
