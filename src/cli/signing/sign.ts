import {networkReason, receiverHint} from '../../shared/network-reason.js'
// --forward-to sends what a delivery sends, and holds the receiver to the same limit (docs/api.md, "Webhooks")
import {deliveryHeaders, RECEIVER_TIMEOUT_MS} from '../../webhooks/send.js'
import {SIGNATURE_HEADER, signPayload} from '../../webhooks/signature.js'
import {cliError} from '../cli-error.js'
import {readRawPayload, requireSecret} from './input.js'

export interface SignInput {
  secret?: string
  payload?: string
  timestamp?: number
  'forward-to'?: string
}

export interface SignOutput {
  header: string
  url?: string
  status?: number
}

/** Shows that a wait is under way (a spinner at a terminal), or nothing: the lean entry has no spinner. */
export type ShowWait = <T>(text: string, work: Promise<T>) => Promise<T>

/** How `signDelivery` shows a wait, and a line for the person at the terminal (stderr). */
export interface SignHooks {
  showWait?: ShowWait
  notice?: (text: string) => void
}

/**
 * What `tablepay sign` does once its flags are parsed, by oclif or by the lean entry.
 *
 * @example
 * await signDelivery({secret, payload: 'body.json'}, console.log)
 */
export async function signDelivery(
  input: SignInput,
  log: (text: string) => void,
  {showWait = (_, work) => work, notice = (text) => process.stderr.write(`${text}\n`)}: SignHooks = {},
): Promise<SignOutput> {
  const secret = await requireSecret(input.secret)
  const payload = await readRawPayload(input.payload, {refuseBlank: true})
  if (input['forward-to'] === undefined) {
    const header = signPayload(payload, secret, input.timestamp)
    log(header)
    return {header}
  }
  // the first attempt of a delivery of the event the payload is
  const event = eventOf(payload)
  if (!event) notice(NOT_AN_EVENT)
  const headers = deliveryHeaders(payload, secret, event, 1, input.timestamp)
  const header = headers[SIGNATURE_HEADER]!
  log(header)
  const url = new URL(input['forward-to'])
  const answer = await showWait('Waiting for the receiver', post(url, payload, headers))
  log(`${url} answered ${answer.status} ${answer.statusText}`.trimEnd())
  return {header, url: url.href, status: answer.status}
}

const NOT_AN_EVENT =
  'The payload is not an event (a JSON object with a string "id" and "type"): sent without the ' +
  'X-Tablepay-Event-Id and X-Tablepay-Event-Type headers every delivery carries. ' +
  '`tablepay events get ID --json` prints an event to send.'

/** The id and type of the event `payload` is, which a delivery's headers repeat; undefined for anything else. */
function eventOf(payload: Buffer): {id: string; type: string} | undefined {
  let value: unknown
  try {
    value = JSON.parse(payload.toString('utf8'))
  } catch {
    return undefined
  }
  const {id, type} = (value ?? {}) as {id?: unknown; type?: unknown}
  return typeof id === 'string' && typeof type === 'string' ? {id, type} : undefined
}

/** Sends a signed payload as a delivery does; anything but a 2xx is a CLI error that says why. */
async function post(url: URL, payload: Buffer, headers: Record<string, string>): Promise<Response> {
  let answer: Response
  try {
    answer = await fetch(withoutCredentials(url), {
      method: 'POST',
      body: payload,
      headers: {...headers, ...basicAuth(url)},
      // A delivery that gets a redirect has failed, so --forward-to shows the receiver the same.
      redirect: 'manual',
      signal: AbortSignal.timeout(RECEIVER_TIMEOUT_MS),
    })
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') {
      throw await cliError(`${url} did not answer within ${RECEIVER_TIMEOUT_MS / 1000} s.`, {
        code: 'receiver_timeout',
        suggestions: ['Answer a delivery with a 2xx first, then do the slow work.'],
      })
    }
    const reason = networkReason(error)
    throw await cliError(`Could not reach ${url} (${reason}).`, {
      code: 'connection_failed',
      suggestions: [receiverHint(reason) ?? 'Start the receiver, or check the --forward-to URL.'],
    })
  }
  if (answer.ok) return answer
  const redirect = answer.headers.get('location')
  const body = await bodyHead(answer)
  throw await cliError(
    `${url} answered ${answer.status} ${answer.statusText}${redirect ? ` (redirect to ${redirect})` : ''}${body ? `: ${body}` : ''}`,
    {
      code: 'receiver_rejected',
      suggestions: [
        redirect
          ? 'Deliveries do not follow redirects: post to the final URL.'
          : 'A receiver accepts a delivery with a 2xx status; see its logs for why it refused.',
      ],
    },
  )
}

/** Up to 300 characters of a refusal's body: what came before it ended, broke off or ran out of time. */
async function bodyHead(answer: Response): Promise<string> {
  const decoder = new TextDecoder()
  let text = ''
  try {
    for await (const chunk of answer.body ?? []) {
      text += decoder.decode(chunk, {stream: true})
      if (text.length >= 300) break
    }
  } catch {
    // cut, malformed, or past the receiver timeout (the request's signal): the refusal is its status all the same
  }
  return text.slice(0, 300)
}

/**
 * A URL's `user:password@`, sent as a delivery sends it (node:http): Basic authentication. fetch refuses a URL that
 * holds one.
 */
function basicAuth({username, password}: URL): {authorization: string} | undefined {
  if (!username && !password) return undefined
  const pair = `${decodeURIComponent(username)}:${decodeURIComponent(password)}`
  return {authorization: `Basic ${Buffer.from(pair).toString('base64')}`}
}

function withoutCredentials(url: URL): URL {
  const bare = new URL(url)
  bare.username = bare.password = ''
  return bare
}
