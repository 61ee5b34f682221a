import {afterAll, beforeAll, expect, test} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {type GeneratedRequest, requestsFrom} from '../helpers/generated-requests.js'
import {doc} from '../helpers/openapi-doc.js'
import {mulberry32} from '../helpers/random.js'
import {type RawAnswer, rawRequest} from '../helpers/raw-http.js'
import {OTHER_KEY, startTestServer, type TestServer, WRITE_KEY} from '../helpers/simulator.js'

let sim: TestServer
beforeAll(async () => {
  sim = await startTestServer()
})
afterAll(() => sim.close())

/** Requests in the run: every operation gets about ten. */
const REQUESTS = 1000

/** The ids an answer shows, to address later requests to what exists: a check's external id and a snapshot's name too. */
const ID = /^(?:chk|clm|pay|fb|evt|we|dlv|req|flt|acct)_[a-z0-9]+$/

function idsIn(value: unknown, into: Set<string>, key = ''): void {
  if (typeof value === 'string') {
    if ((ID.test(value) || key === 'external_id' || key === 'name') && value !== 'acct_demo') into.add(value)
  } else if (value && typeof value === 'object')
    for (const [inner, field] of Object.entries(value)) idsIn(field, into, Array.isArray(value) ? key : inner)
}

const LINES: [string, number, number][] = [
  ['a', 1, 500],
  ['b', 2, 300],
]

/** Records for the requests to address: drawn at random, they rarely make a valid check, claim or payment. */
async function someRecords(): Promise<unknown[]> {
  const made: unknown[] = []
  for (const external of ['g1', 'g2']) {
    const {body: check} = await sim.api('PUT', `/v1/checks/external/${external}`, {body: checkWith(LINES)})
    const claim = {items: [{external_id: 'a', quantity: 1}]}
    made.push(check, (await sim.api('POST', `/v1/sim/checks/${check.id}/claims`, {body: claim})).body)
    made.push((await sim.api('POST', `/v1/sim/checks/${check.id}/payments`, {body: {amount_cents: 300}})).body)
  }
  made.push((await sim.api('POST', '/v1/webhook-endpoints', {body: {url: 'http://127.0.0.1:9/hook'}})).body)
  return made
}

/** The requests of `seed`, addressed to the records made first and to those the answers show. */
async function drawn(seed: number) {
  const ids = new Set<string>()
  for (const record of await someRecords()) idsIn(record, ids)
  const next = requestsFrom(doc, mulberry32(seed), () => [...ids])
  /** Sends `request` with `key`; a fault it made is cleared at once, or it would answer those after it. */
  const send = async ({method, path, headers, body}: GeneratedRequest, key = WRITE_KEY) => {
    const answer = await rawRequest(sim.url, method, path, {
      headers: {authorization: `Bearer ${key}`, ...headers},
      body,
    })
    if (answer.status < 300 && key === WRITE_KEY) idsIn(answer.body, ids)
    if (path.startsWith('/v1/sim/faults')) await sim.api('DELETE', '/v1/sim/faults')
    return answer
  }
  return {next, send}
}

test('requests made from the OpenAPI document, of every shape, get no 5xx, and each error has the documented body', async () => {
  const {next, send} = await drawn(20_261_130)
  const wrong: string[] = []
  for (let i = 0; i < REQUESTS; i++) {
    const request = next()
    const answer = await send(request)
    const {method, path, body} = request
    const said = `${method} ${path.slice(0, 120)} ${body?.slice(0, 200) ?? ''} → ${answer.status} ${answer.text.slice(0, 200)}`
    const error = answer.body?.error
    const documented =
      typeof error?.code === 'string' &&
      typeof error.message === 'string' &&
      error.request_id === answer.headers['x-request-id']
    if (answer.status >= 500) wrong.push(said)
    else if (answer.status >= 400 && method !== 'HEAD' && !documented) wrong.push(`no error body: ${said}`)
  }
  expect(wrong).toEqual([])
  expect((await sim.api('GET', '/v1/health')).status).toBe(200)
})

/** A write that names its record in the path; a check's is put by its POS id, which each account has its own of. */
const writesTo = ({method, path, addressed}: GeneratedRequest) =>
  addressed && method !== 'GET' && method !== 'HEAD' && !path.startsWith('/v1/checks/external/')

test("one account's records, named in the path with another account's key, are 404 to read and to write", async () => {
  const {next, send} = await drawn(20_261_201)
  const shown: string[] = []
  let reads = 0
  for (let i = 0; i < REQUESTS; i++) {
    const request = next()
    const {method, path} = request
    const tell = (other: RawAnswer) => `${method} ${path.slice(0, 120)} → ${other.status} ${other.text.slice(0, 200)}`
    // the other account's write first: one it is refused leaves the record for the write key's
    if (writesTo(request)) {
      const other = await send(request, OTHER_KEY)
      if (other.status < 300) shown.push(tell(other))
    }
    const own = await send(request)
    if (!request.addressed || own.status >= 300 || writesTo(request)) continue
    reads++
    const other = await send(request, OTHER_KEY)
    if (other.status !== 404) shown.push(tell(other))
  }
  expect(reads).toBeGreaterThan(50)
  expect(shown).toEqual([])
})
