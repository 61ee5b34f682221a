import {checkWith} from './checks.js'
import {doc, type Doc} from './openapi-doc.js'
import {mulberry32, pickerOf} from './random.js'
import {type RawAnswer, rawRequest} from './raw-http.js'
import {call, WRITE_KEY} from './simulator.js'

/** One request made from the document: its path already encoded, sent byte for byte. */
export interface GeneratedRequest {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
  /** Whether its path names a record (a check's id, a snapshot's name…). */
  addressed: boolean
}

type Schema = Record<string, any>

/** Values of every shape, mixed into what the schemas ask for: the ones a parser or a store trips on. */
const ODD: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  2 ** 53 + 2,
  '',
  ' ',
  'x'.repeat(2000),
  '\ud800',
  '😀',
  'é',
  '%',
  '../..',
  '2026-13-45T99:99:99Z',
  [],
  {},
  [null],
  {a: 1},
]

/** Path segments of every shape, as bytes: malformed escapes, an encoded slash, dot segments, a NUL. */
const ODD_SEGMENTS = ['%', '%E0%A4%A', '%2F', '..', '%2e%2e', 'a%00b', 'x'.repeat(500), '%F0%9F%98%80']

/** Bodies that are not the JSON of a value, or not JSON at all. */
const ODD_BODIES = ['{', '[]', 'null', '"x"', `{"a":${'['.repeat(5000)}`, '\u00ff\u00fe', '{"a":1,"a":2}']

/** The prefix of the ids a path's collection holds, for a parameter after it. */
const PREFIXES: Record<string, string> = {
  checks: 'chk_',
  claims: 'clm_',
  payments: 'pay_',
  feedback: 'fb_',
  events: 'evt_',
  'webhook-endpoints': 'we_',
  deliveries: 'dlv_',
  requests: 'req_',
  faults: 'flt_',
  accounts: 'acct_',
  // a table link's guest token
  t: 'gt_',
}

/** The prefix of the ids a field names: `check`, `check_id`… */
const FIELD_PREFIXES: Record<string, string> = {
  check: 'chk_',
  claim: 'clm_',
  payment: 'pay_',
  endpoint: 'we_',
  event: 'evt_',
}

/** A body of the schema `name`, as the document names it: what the table page's writes take. */
const bodyOf = (name: string) => ({
  requestBody: {content: {'application/json': {schema: {$ref: `#/components/schemas/${name}`}}}},
})

/**
 * The table page's routes (docs/pages.md): not in the document, drawn too. A table link is the guest's
 * key, so no request to one is an account's (`addressed` is false); its stream is left out, as `LEFT_OUT`'s.
 */
const TABLE_PAGE: {path: string; method: string; operation: Schema}[] = [
  {path: '/t/{token}', method: 'GET', operation: {}},
  {path: '/t/{token}/location', method: 'GET', operation: {}},
  {path: '/t/{token}/check', method: 'GET', operation: {}},
  {path: '/t/{token}/qr.svg', method: 'GET', operation: {}},
  {path: '/t/{token}/claims', method: 'POST', operation: bodyOf('ClaimInput')},
  {path: '/t/{token}/payments', method: 'POST', operation: bodyOf('PaymentInput')},
  {path: '/t/{token}/payments/{id}', method: 'GET', operation: {}},
  {path: '/t/{token}/payments/{id}/refund', method: 'POST', operation: bodyOf('RefundInput')},
  {path: '/t/{token}/feedback', method: 'POST', operation: bodyOf('FeedbackInput')},
]

/**
 * Not drawn: a stream never ends, so a request to one never answers; a reset takes the records the draws address.
 * The tests open the stream and send resets beside the draws instead (`before` of `wrongAnswers`).
 */
const LEFT_OUT = new Set(['/sim/stream', '/sim/reset'])

/**
 * Requests to every operation of `doc` and every route of the table page
 * (`TABLE_PAGE`), drawn by `random`: a path parameter one of the `ids`
 * answers have shown so far or a segment of any shape, query parameters
 * and a body built from their schemas with odd values mixed in, now and
 * then a body that is no JSON or another content type. An endpoint's URL
 * is a closed loopback port, so no delivery leaves the machine.
 *
 * @example
 * const next = requestsFrom(doc, mulberry32(1), () => ['chk_…'])
 * const {method, path, body} = next()
 */
export function requestsFrom(doc: Doc, random: () => number, ids: () => readonly string[]): () => GeneratedRequest {
  const pick = pickerOf(random)
  const chance = (p: number) => random() < p
  const resolve = (schema: Schema | undefined): Schema =>
    schema?.$ref ? resolve(doc.components.schemas[schema.$ref.split('/').pop()!]) : (schema ?? {})

  /** A known id that starts with `prefix` (any known one for ''), else one of `fallback`. */
  const known = (prefix: string, fallback: readonly string[]) => {
    const matching = ids().filter((id) => id.startsWith(prefix))
    return matching.length > 0 && chance(0.9) ? pick(matching) : pick(fallback)
  }

  function value(schema: Schema | undefined, depth = 0, key = ''): unknown {
    const s = resolve(schema)
    if (chance(0.02) || depth > 6) return pick(ODD)
    if (s.const !== undefined) return s.const
    if (s.enum) return pick(s.enum)
    if (s.oneOf ?? s.anyOf) return value(pick(s.oneOf ?? s.anyOf), depth)
    // beside a type, allOf only narrows it (a fault's "one of status, delay_ms, reset"): drawn from the type, the
    // server left to refuse what the parts do not allow
    if (s.allOf && s.type) return value({...s, allOf: undefined}, depth, key)
    if (s.allOf) return Object.assign({}, ...s.allOf.map((part: Schema) => value(part, depth)))
    switch (Array.isArray(s.type) ? pick(s.type) : s.type) {
      case 'object': {
        const object: Record<string, unknown> = {}
        for (const [key, field] of Object.entries<Schema>(s.properties ?? {}))
          if (chance(s.required?.includes(key) ? 0.98 : 0.5)) object[key] = value(field, depth + 1, key)
        // defined, not assigned: an assigned `__proto__` sets the prototype, and JSON.stringify leaves it out
        if (chance(0.05))
          Object.defineProperty(object, pick(['extra', '__proto__', 'constructor']), {
            value: pick(ODD),
            enumerable: true,
          })
        return object
      }
      case 'array':
        return Array.from({length: chance(0.05) ? 300 : Math.floor(random() * 4)}, () => value(s.items, depth + 1))
      case 'integer':
        return pick([0, 1, 2, 100, 99_999_999, s.minimum ?? 0, s.maximum ?? 10, (s.maximum ?? 10) + 1, -1])
      case 'number':
        return pick([0, 0.5, 1, 2, 12.34, -1, 1e9])
      case 'boolean':
        return chance(0.5)
      case 'string':
        return text(s, key)
      default:
        return pick(ODD)
    }
  }

  /** A string for `schema`, the field `key`'s: one that names a record names one that exists, mostly, so requests reach past the 404. */
  function text(schema: Schema, key: string): string {
    if (schema.format === 'uri') return 'http://127.0.0.1:9/hook'
    if (schema.format === 'date-time') return pick(['2026-01-01T00:00:00Z', '2026-11-30T12:00:00.000+01:00'])
    if (key === 'location_id') return 'loc_main'
    if (key === 'path') return pick(['/v1/checks/**', '/v1/checks/external/*', '/v1/*/*/claims'])
    const named = FIELD_PREFIXES[key.replace(/_id$/, '')]
    return named ? known(named, ['x']) : pick(['a', 'b', 'EUR', 'check.created', '*', '1h', 'x'.repeat(40)])
  }

  /** A path parameter after `collection`: an id it holds, mostly. */
  const segment = (collection: string) =>
    chance(0.1) ? pick(ODD_SEGMENTS) : encodeURIComponent(known(PREFIXES[collection] ?? '', ['x', 'chk_x', 'demo']))

  const operations = Object.entries(doc.paths)
    .filter(([path]) => !LEFT_OUT.has(path))
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => method !== 'parameters')
        .map(([method, operation]) => ({
          path: `/v1${path}`,
          method: method.toUpperCase(),
          operation: operation as Schema,
        })),
    )
    .concat(TABLE_PAGE)

  return () => {
    const {path, method, operation} = pick(operations)
    const query = new URLSearchParams()
    for (const parameter of (operation.parameters ?? []).map(resolveParameter))
      if (parameter.in === 'query' && chance(0.4)) query.set(parameter.name, String(value(parameter.schema)))
    const headers: Record<string, string> = {}
    const schema = operation.requestBody?.content?.['application/json']?.schema
    let body: string | undefined
    if (schema) {
      body = chance(0.05) ? pick(ODD_BODIES) : JSON.stringify(value(schema))
      headers['content-type'] = chance(0.95)
        ? 'application/json'
        : pick(['text/plain', 'application/json; charset=latin1'])
    }
    if (chance(0.1)) headers['idempotency-key'] = pick(['k1', 'k2', 'x'.repeat(300)])
    const filled = path.replace(/([\w-]+)\/\{\w+\}/g, (_, collection: string) => `${collection}/${segment(collection)}`)
    const addressed = filled !== path && !path.startsWith('/t/')
    return {method, path: `${filled}${query.size > 0 ? `?${query}` : ''}`, headers, body, addressed}
  }

  function resolveParameter(parameter: Schema): Schema {
    return parameter.$ref ? (doc.components as Schema).parameters[parameter.$ref.split('/').pop()!] : parameter
  }
}

/** The ids an answer shows, to address later requests to what exists: a check's external id and a snapshot's name too. */
const ID = /^(?:chk|clm|pay|fb|evt|we|dlv|req|flt|acct)_[a-z0-9]+$/

function idsIn(value: unknown, into: Set<string>, key = ''): void {
  if (typeof value === 'string') {
    if ((ID.test(value) || key === 'external_id' || key === 'name') && value !== 'acct_demo') into.add(value)
    if (key === 'guest_url') into.add(value.slice(value.lastIndexOf('/') + 1))
  } else if (value && typeof value === 'object')
    for (const [inner, field] of Object.entries(value)) idsIn(field, into, Array.isArray(value) ? key : inner)
}

const LINES: [string, number, number][] = [
  ['a', 1, 500],
  ['b', 2, 300],
]

/**
 * Records for the requests to address, made on `url`: drawn at random, they rarely make a valid check, claim or
 * payment. Checks of their own for each `seed`, so that what the draws of one did to theirs leaves another's as new.
 */
async function someRecords(url: string, seed: number): Promise<unknown[]> {
  const made: unknown[] = []
  for (const external of [`g${seed}-1`, `g${seed}-2`]) {
    const {body: check} = await call(url, 'PUT', `/v1/checks/external/${external}`, {body: checkWith(LINES)})
    const claim = {items: [{external_id: 'a', quantity: 1}]}
    made.push(check, (await call(url, 'POST', `/v1/sim/checks/${check.id}/claims`, {body: claim})).body)
    made.push((await call(url, 'POST', `/v1/sim/checks/${check.id}/payments`, {body: {amount_cents: 300}})).body)
  }
  made.push((await call(url, 'POST', '/v1/webhook-endpoints', {body: {url: 'http://127.0.0.1:9/hook'}})).body)
  return made
}

/**
 * The requests of `seed` to the servers at `urls`, in turn, addressed to
 * records made first and to those the answers show: `next` draws one,
 * `send` sends it with `key` (the write key by default). A fault a request
 * made is cleared at once, or it would answer those after it.
 *
 * @example
 * const {next, send} = await drawnRequests([sim.url], 1)
 * const answer = await send(next())
 */
export async function drawnRequests(urls: readonly string[], seed: number) {
  const ids = new Set<string>()
  for (const record of await someRecords(urls[0]!, seed)) idsIn(record, ids)
  const next = requestsFrom(doc, mulberry32(seed), () => [...ids])
  let turn = 0
  const send = async ({method, path, headers, body}: GeneratedRequest, key = WRITE_KEY): Promise<RawAnswer> => {
    const url = urls[turn++ % urls.length]!
    const answer = await rawRequest(url, method, path, {headers: {authorization: `Bearer ${key}`, ...headers}, body})
    if (answer.status < 300 && key === WRITE_KEY) idsIn(answer.body, ids)
    if (path.startsWith('/v1/sim/faults')) await call(url, 'DELETE', '/v1/sim/faults')
    return answer
  }
  return {next, send}
}

/** A request and its answer, as a failed test lists them. */
export const told = ({method, path, body}: GeneratedRequest, answer: RawAnswer): string =>
  `${method} ${path.slice(0, 120)} ${body?.slice(0, 200) ?? ''} → ${answer.status} ${answer.text.slice(0, 200)}`

/**
 * What is wrong with `answer` to `request`: a 5xx that no fault made, or an error without its documented body;
 * undefined when nothing. A simulated 5xx carries `X-Tablepay-Fault` and the code `simulated_fault` (a HEAD, no
 * body); a fault that only delays leaves a request's own failure its own code.
 */
export function wrongAnswer(request: GeneratedRequest, answer: RawAnswer): string | undefined {
  const error = answer.body?.error
  const documented =
    typeof error?.code === 'string' &&
    typeof error.message === 'string' &&
    error.request_id === answer.headers['x-request-id']
  const simulated =
    answer.headers['x-tablepay-fault'] !== undefined && (request.method === 'HEAD' || error?.code === 'simulated_fault')
  if (answer.status >= 500 && !simulated) return told(request, answer)
  if (answer.status >= 400 && request.method !== 'HEAD' && !documented) return `no error body: ${told(request, answer)}`
  return undefined
}

/**
 * What is wrong (`wrongAnswer`) with the answers to `count` requests of `seed` sent to `urls`. With `faults` false
 * none is sent to the fault routes, for requests sent at once by others: a fault made answers theirs too until it
 * is cleared. `before(i)` runs before the `i`th request, say a reset beside them. `reset(request)`, given when a
 * fault made beside may reset connections, says what is wrong with a connection reset with no answer (else it fails
 * the call).
 */
export async function wrongAnswers(
  urls: readonly string[],
  seed: number,
  count: number,
  {
    faults = true,
    before,
    reset,
  }: {
    faults?: boolean
    before?: (i: number) => Promise<unknown>
    reset?: (request: GeneratedRequest) => string | undefined
  } = {},
) {
  const {next, send} = await drawnRequests(urls, seed)
  const wrong: string[] = []
  for (let i = 0; i < count; i++) {
    await before?.(i)
    const request = next()
    if (!faults && request.path.startsWith('/v1/sim/faults')) continue
    const said = await send(request).then(
      (answer) => wrongAnswer(request, answer),
      (error: unknown) => {
        if (!reset) throw error
        return reset(request)
      },
    )
    if (said) wrong.push(said)
  }
  return wrong
}
