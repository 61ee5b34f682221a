import type {Errors} from '@oclif/core'
import {TablepayApiError, TablepayError, type TablepayErrorBody, type TablepayErrorDetail} from '../client/errors.js'
import type {CliErrorCode} from './error-codes.js'
import {singleQuoted} from '../shared/shell-word.js'
import {flagTaking} from './id-flag.js'
import {nearestOf} from './nearest.js'
import {quotedInput} from '../domain/quoted-input.js'

// What to try next for each API error code, in the CLI's terms (its flags, its commands): the server's
// message says what went wrong and, for any client, what to send instead, so a hint adds rather than repeats.
const NEXT_STEP: Record<string, string> = {
  unauthenticated: 'Pass it with --api-key or TABLEPAY_API_KEY.',
  insufficient_scope: "Pass the account's write key (`tablepay serve` prints it) with --api-key.",
  validation_failed: 'Fix the fields the error names and send the request again.',
  check_not_open: 'Push the check with "status": "open" first (`tablepay checks push`).',
  payment_declined: 'Send it again without --decline.',
  idempotency_key_reused: 'Pass a new --idempotency-key.',
  event_type_not_subscribed:
    'Add the type to the endpoint with `tablepay webhooks update` (its -e replaces the types), or resend to an endpoint that takes it.',
  endpoint_disabled: 'A disabled endpoint stays disabled: register a new one with `tablepay webhooks create`.',
  simulated_fault:
    'A fault you added made this fail: `tablepay faults list` shows the faults left, `tablepay faults clear` removes them.',
  rate_limited: 'Wait the Retry-After seconds, then send the request again.',
  starting: 'Wait a second and send it again: the server is still starting.',
}

/**
 * The human text of a client error: the message, each detail on its own line, and the request id for support
 * tracing. `fieldFlags`: the body's fields the command's flags fill, named as those flags (`amount_cents` as
 * `--amount`); a field's own fields (`items.0.external_id`) keep their path.
 *
 * @example
 * describeError(error, {amount_cents: '--amount'}) // '--amount 99999 is more than the 7865 due on check chk_…'
 */
export function describeError(error: TablepayError, fieldFlags: Readonly<Record<string, string>> = {}): string {
  if (!(error instanceof TablepayApiError)) return error.message
  const flags = Object.entries({...PAGE_FLAGS, ...fieldFlags})
  const asFlags = (text: string) => flags.reduce((named, [field, flag]) => named.replace(fieldWord(field), flag), text)
  const inTerms = (text: string) => inCliTerms(asFlags(text))
  const details = error.details ?? []
  const lines = details.map(
    (d) => `  - ${asFlags(d.path)}: ${inTerms(d.message)}${idNotNamed(d) ? ` (${d.external_id})` : ''}`,
  )
  const request = error.requestId ? [`Request id: ${error.requestId}`] : []
  return [inTerms(headline(error.message, details)), ...lines, ...request].join('\n')
}

// what every list command sends from its flags (flags/page.ts)
const PAGE_FLAGS = {starting_after: '--starting-after'}

// the field's name as a word, not the start of a path into it
const fieldWord = (field: string) => new RegExp(`\\b${field}(?![.\\w])`, 'g')

/**
 * The API's routes a message tells any client to call, as the commands that call them; those a hint names
 * already (`tablepay webhooks create` for a disabled endpoint) are left to it.
 */
const COMMANDS_OF_ROUTES: [RegExp, string][] = [
  [/POST \/v1\/events\/(\S+)\/resend\b/g, '`tablepay events resend $1 --endpoint we_…`'],
  // a check's claims: no command lists them by check, their events do
  [/GET \/v1\/checks\/\S+\/claims lists them/g, '`tablepay events list -e claim.created` lists the claims'],
  // a request a fault struck, whatever the command
  [/DELETE \/v1\/sim\/faults removes it/g, '`tablepay faults clear` removes it'],
  // named by the hint already
  [/; GET \/v1\/locations lists them/g, ''],
  [/ \(GET \/v1\/sim\/faults\)/g, ''],
  [/; list them with GET \/v1\/sim\/snapshots/g, ''],
]

const inCliTerms = (message: string): string =>
  COMMANDS_OF_ROUTES.reduce((text, [route, command]) => text.replace(route, command), message)

const idNotNamed = (d: TablepayErrorDetail) => d.external_id !== undefined && !d.message.includes(d.external_id)

// The server's message quotes the first detail ("…failed validation: table: …", the detail alone, or
// its message after a colon: "Not enough left to claim on check chk_…: only 1 of …"); the list below
// repeats it, so the headline stops there.
function headline(message: string, [first]: TablepayErrorDetail[]): string {
  if (!first) return message
  const quoted = message.indexOf(`${first.path}: ${first.message}`)
  const after = message.indexOf(`: ${first.message}`)
  const at = quoted >= 0 ? quoted : after >= 0 ? after + 1 : -1
  if (at < 0) return message
  return message.slice(0, at).trimEnd() || 'The request was refused:'
}

/**
 * What to try next. `keyFrom` names where a key the server refused came from when the user may not know it
 * (`TABLEPAY_API_KEY`, exported for another server or copied from the read-only dashboard link).
 */
export function suggestionsFor(error: TablepayError, keyFrom?: string): string[] | undefined {
  const steps = [nextStepFor(error)]
  if (keyFrom && (error.code === 'unauthenticated' || error.code === 'insufficient_scope'))
    steps.push(`The key came from ${keyFrom}: unset it to use the key of the server running here.`)
  const given = steps.filter((step) => step !== undefined)
  return given.length > 0 ? given : undefined
}

// an answer that is not the API's (another service at the URL): the one thing to check
const CHECK_URL = 'Check --url: it must name the tablepay server (http://127.0.0.1:4747).'

function nextStepFor(error: TablepayError): string | undefined {
  if (error.code === 'not_found') return notFoundStep(error.message)
  // a key was sent, and the server does not know it (its message says where keys come from): another one, then
  if (error.code === 'unauthenticated' && error.message.startsWith('Unknown API key'))
    return 'Pass another with --api-key or TABLEPAY_API_KEY.'
  // the server's answer says how long: the hint gives the number, not the header's name
  const wait = error instanceof TablepayApiError ? error.retryAfterS : undefined
  if (error.code === 'rate_limited') {
    const again = wait === undefined ? NEXT_STEP.rate_limited! : `Wait ${wait} s, then send the request again.`
    // a 429 a fault gave says so (src/domain/faults.ts, FaultError): the fault is the user's to remove
    return error.message.includes('(simulated by fault ') ? `${again} ${NEXT_STEP.simulated_fault}` : again
  }
  if (error.code === 'unexpected_answer' || /^http_\d+$/.test(error.code)) return CHECK_URL
  if (error.code === 'conflict_with_paid_items') {
    return conflictStep(error instanceof TablepayApiError ? (error.details ?? []) : [])
  }
  // an account of several locations needs one named (the message lists them): the body's field is a flag of `checks push`
  const location = error instanceof TablepayApiError && error.details?.find((d) => d.path === 'location_id')
  const first = location && /^required: .* locations: (loc_\w+)/.exec(location.message)?.[1]
  if (error.code === 'validation_failed' && first) {
    return `Send it again naming one: \`tablepay checks push\` takes \`--location ${first}\`; or location_id in the body.`
  }
  if (error.code === 'validation_failed' && location && location.message.startsWith('no location')) return LOOK_UP.loc
  if (error.code === 'limit_reached') return limitStep(error)
  // the endpoint's other types: -e replaces them, so the hint says to name them too
  const unsubscribed = /^Endpoint (we_\w+) does not take (\S+) events/.exec(error.message)
  if (error.code === 'event_type_not_subscribed' && unsubscribed) {
    const [, endpoint, type] = unsubscribed
    return `\`tablepay webhooks list\` shows ${endpoint}'s types; \`tablepay webhooks update ${endpoint} -e\` with them and ${type} adds it (-e replaces them). Or resend to an endpoint that takes it.`
  }
  return checkStep(error) ?? NEXT_STEP[error.code]
}

// Past an account's limit (`This account has 100 faults…`; an import's message says what to do instead).
const LIMIT_STEP: Record<string, string> = {
  faults: '`tablepay faults list` shows them; `tablepay faults clear flt_…` removes one, `tablepay faults clear` all.',
  webhook_endpoints: '`tablepay webhooks list` shows them; `tablepay webhooks delete we_…` removes one.',
}

function limitStep(error: TablepayError): string | undefined {
  if (!(error instanceof TablepayApiError) || !error.message.startsWith('This account has')) return undefined
  return LIMIT_STEP[error.details?.[0]?.path ?? '']
}

/** A POS id as a shell word `checks get` reads: one that starts like a flag, or holds `~`, goes quoted after `--`. */
const posIdWord = (id: string) => (/^[\w.:@+=][\w.:@+=-]*$/.test(id) ? id : `-- ${singleQuoted(id)}`)

// Refusals about one check's contents, whose message names the check: `on check chk_…`, or the POS id, `Check t12 …`.
const CHECK_STEP: Record<string, (check: string) => string> = {
  item_unavailable: (check) => `See what is left with \`tablepay checks get ${check}\` and claim at most that.`,
  amount_exceeds_balance: (check) => `See what is due with \`tablepay checks get ${check}\` and pay at most that.`,
  version_conflict: (check) => `See the stored version with \`tablepay checks get ${check}\`.`,
  // a claim of an item the check does not have (`trigger claim --item`): its items are on the check
  validation_failed: (check) => `See the check's items and their external ids with \`tablepay checks get ${check}\`.`,
}

function checkStep(error: TablepayError): string | undefined {
  const step = CHECK_STEP[error.code]
  if (!step || !(error instanceof TablepayApiError)) return undefined
  // a validation names the check in the detail of the item it lacks
  const text =
    error.code === 'validation_failed'
      ? error.details?.find((d) => /^no item /.test(d.message))?.message
      : error.message
  const check = text && (/\bon check (chk_\w+)/.exec(text)?.[1] ?? /^Check (\S+) already has/.exec(text)?.[1])
  return check ? step(posIdWord(check)) : undefined
}

// Where to look up each kind of id; the server's message names the id it did not find.
const LOOK_UP: Record<string, string> = {
  chk: "See the account's checks with `tablepay checks list`; a command that takes a check takes its chk_ id or its POS id.",
  we: 'See the webhook endpoints with `tablepay webhooks list`: a deleted endpoint is gone for good.',
  dlv: "See the deliveries with `tablepay deliveries list` (--endpoint we_… for one endpoint's).",
  evt: 'See the events with `tablepay events list` (--event-type to narrow it).',
  pay: "`tablepay trigger payment` prints a payment's id; `tablepay events list -e payment.succeeded` lists them.",
  clm: "`tablepay trigger claim` prints a claim's id; `tablepay events list -e claim.created` lists them.",
  loc: "See the account's locations with `tablepay locations list`.",
  flt: 'See the faults left with `tablepay faults list`: a used-up fault is gone.',
  req: "See the requests the log still holds with `tablepay logs list` (it keeps each account's newest).",
}

function notFoundStep(message: string): string | undefined {
  // a request log that is off (domain/constants.ts, REQUEST_LOG_OFF, not imported: `verify` and `sign` load this
  // file on their lean start): the message says how to turn it on
  if (message.startsWith('The request log is off')) return undefined
  const prefix = /\b(chk|we|dlv|evt|pay|clm|loc|flt|req)_\w+/.exec(message)?.[1]
  // a POS id names a check only once a push of it was accepted: the refused ones are in the request log
  const external = /\bexternal id (\S+) in this account/.exec(message)?.[1]
  const refused = external
    ? ` Pushes of ${external} that were refused: \`tablepay logs list --path /v1/checks/external/${external}\`; ` +
      `those to come, live: \`tablepay logs tail --path /v1/checks/external/${external}\`.`
    : ''
  const kind = prefix ?? (external ? 'chk' : undefined)
  if (kind) return `${LOOK_UP[kind]}${refused} An id of another account is not found either: check --api-key.`
  if (/no such route/i.test(message)) return CHECK_URL
  return 'Check the id and --api-key: ids of another account are not found.'
}

// A push that takes away claimed items needs them kept; "refund first" is only for what guests paid.
function conflictStep(details: TablepayErrorDetail[]): string {
  const claimed = details.some((d) => d.external_id !== undefined)
  const paid = details.some((d) => d.external_id === undefined)
  const steps = [
    ...(claimed ? ['keep every claimed item, with its price and at least its claimed quantity'] : []),
    ...(paid ? ['keep the total at least what guests paid and the check not voided'] : []),
  ]
  const refund = paid ? ', or refund with `tablepay trigger refund` first' : ''
  return `Push the check again and ${steps.join('; and ') || 'keep what guests claimed and paid'}${refund}.`
}

/** The API's error body, and what to try next when the CLI itself refused and knows (`Did you mean …?`). */
export interface CliErrorBody extends TablepayErrorBody {
  error: TablepayErrorBody['error'] & {suggestions?: string[]}
}

/**
 * Any failure in the API's error body shape, so `--json` callers parse one
 * format whether the server or the CLI refused.
 */
export function errorBody(error: unknown): CliErrorBody {
  if (error instanceof TablepayError) return error.toJSON()
  const {code, message, suggestions, refusal} = error as Partial<Errors.CLIError & {refusal: unknown}>
  const next = suggestions?.length ? {suggestions} : {}
  // the CLI's reading of the server's refusal (a snapshot it does not have is a wrong command line): the server's body
  if (refusal instanceof TablepayError) return {error: {...refusal.toJSON().error, ...next}}
  const fallback: CliErrorCode = isUsageError(error) ? 'invalid_usage' : 'cli_error'
  return {error: {code: code ?? fallback, message: message ?? String(error), ...next}}
}

/**
 * A wrong command line: oclif's parser's errors carry `parse`; a flag's own parse error and a command's own
 * refusal of a value only the usage exit code.
 */
const isUsageError = (error: unknown): boolean =>
  (error !== null && typeof error === 'object' && 'parse' in error) ||
  (error as Partial<Errors.CLIError> | null)?.oclif?.exit === 2

/** What oclif's parser appends to every refused flag or argument. */
const MORE_HELP = '\nSee more help with --help'

/**
 * A wrong command line without a suggestion of its own points to `help` (the command's `--help`, as typed),
 * whoever refused it. oclif's words around a refused flag or argument are made one line like every other error: `Parsing
 * --limit \n\t<reason>\nSee more help with --help` becomes `--limit: <reason>`. Against `flags`, the ones the
 * command takes, a flag it does not know gets the nearest (`--jsn`: did you mean `--json`?), as a mistyped command
 * does, and an id given as one argument too many the flag that takes it (`webhooks delete we_1 we_2`).
 *
 * @example
 * tidyParseError(error, 'tablepay checks list --help', {limit: {}}) // error.message: '--limit: Expected an integer …'
 */
export function tidyParseError(
  error: unknown,
  help: string,
  flags: Readonly<Record<string, {summary?: string}>> = {},
): void {
  const refused = error as (Error & {suggestions?: string[]; code?: string}) | null
  if (typeof refused?.message !== 'string' || !isUsageError(refused)) return
  const pointer = `See \`${help}\`.`
  // oclif's own errors carry no code: printed, they would lack the `Code:` line every other error has
  refused.code ??= 'invalid_usage'
  // a refusal of the command's own says what to do instead; one without, where to read what it takes (a start
  // refused for its data dir or seed, `server_start_failed`, says what to give instead)
  if (!refused.message.endsWith(MORE_HELP)) {
    if (!refused.suggestions?.length && (refused.code ?? 'invalid_usage') === 'invalid_usage')
      refused.suggestions = [pointer]
    return
  }
  refused.message = refused.message
    .slice(0, -MORE_HELP.length)
    .replace(/^Parsing (--[\w-]+) \n\t/, '$1: ')
    // a list of what was refused (flags' relations, arguments missing, each `NAME  description`), one line too
    .replace(/^The following errors? occurred:\n\s*/, '')
    .replace(
      /^(Missing \d+ required args?):((?:\n\S+ {2,}.*(?:\n\s+\S.*)*)+)$/,
      (_, head: string, list: string) =>
        `${head}: ${list
          .trim()
          // a description oclif wrapped goes on in lines that start with spaces
          .replace(/\n\s+/g, ' ')
          .split('\n')
          .map((line) => line.replace(/^(\S+) {2,}(.*)$/, '$1 ($2)'))
          .join('; ')}`,
    )
    // at a terminal each line may start with a colour's code, before its indent
    // eslint-disable-next-line no-control-regex -- that code starts with ESC
    .replace(/\n(\u001B\[\d+m)?\s*/g, '; $1')
    // a flag as it is typed
    .replace(/Missing required flag ([\w-]+)/g, 'Missing required flag --$1')
  const unknown = /^Nonexistent flag: --([\w-]+)$/.exec(refused.message)?.[1]
  const meant = unknown && nearestOf(unknown, Object.keys(flags))
  const extra = /^Unexpected argument: (\S+)$/.exec(refused.message)?.[1]
  const taking = extra && flagTaking(extra, flags)
  const hints = [...(meant ? [`Did you mean --${meant}?`] : []), ...(taking ? [`Pass ${extra} with --${taking}.`] : [])]
  refused.suggestions = [...(refused.suggestions ?? []), ...hints, pointer]
}

/**
 * A refused value of the command line as every message quotes one: up to its first 100 characters (quotedInput),
 * where oclif's own messages (`Expected --status=… to be one of`) or a flag's quote it whole.
 *
 * @example
 * shortenGiven(error, ['--limit', '9'.repeat(300)]) // error.message: '--limit: … received: "999…" (300 characters)'
 */
export function shortenGiven(error: unknown, argv: readonly string[]): void {
  const refused = error as Error | null
  if (typeof refused?.message !== 'string' || !isUsageError(refused)) return
  for (const arg of argv) {
    const value = /^--[\w-]+=/.test(arg) ? arg.slice(arg.indexOf('=') + 1) : arg
    const quoted = quotedInput(value)
    if (quoted === `"${value}"`) continue
    refused.message = refused.message.replaceAll(`"${value}"`, quoted).replaceAll(value, quoted)
  }
}
