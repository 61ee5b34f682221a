import {afterAll, beforeAll, expect, test} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {requestsFrom} from '../helpers/generated-requests.js'
import {doc} from '../helpers/openapi-doc.js'
import {mulberry32} from '../helpers/random.js'
import {rawRequest} from '../helpers/raw-http.js'
import {startTestServer, type TestServer, WRITE_KEY} from '../helpers/simulator.js'

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

test('requests made from the OpenAPI document, of every shape, get no 5xx, and each error has the documented body', async () => {
  const ids = new Set<string>()
  for (const record of await someRecords()) idsIn(record, ids)
  const next = requestsFrom(doc, mulberry32(20_261_130), () => [...ids])
  const wrong: string[] = []
  for (let i = 0; i < REQUESTS; i++) {
    const {method, path, headers, body} = next()
    const answer = await rawRequest(sim.url, method, path, {
      headers: {authorization: `Bearer ${WRITE_KEY}`, ...headers},
      body,
    })
    const said = `${method} ${path.slice(0, 120)} ${body?.slice(0, 200) ?? ''} → ${answer.status} ${answer.text.slice(0, 200)}`
    const error = answer.body?.error
    if (answer.status >= 500) wrong.push(said)
    else if (answer.status >= 400 && method !== 'HEAD') {
      const documented =
        typeof error?.code === 'string' &&
        typeof error.message === 'string' &&
        error.request_id === answer.headers['x-request-id']
      if (!documented) wrong.push(`no error body: ${said}`)
    } else if (answer.status < 300) idsIn(answer.body, ids)
    // a fault made here would answer the requests after it: each is cleared at once
    if (path.startsWith('/v1/sim/faults')) await sim.api('DELETE', '/v1/sim/faults')
  }
  expect(wrong).toEqual([])
  expect((await sim.api('GET', '/v1/health')).status).toBe(200)
})
