import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import type {AccessLine} from '../../src/domain/request-log.js'
import {renderRequestLine} from '../../src/cli/views/request.js'
import {checkWith} from '../helpers/checks.js'
import {READ_KEY, startTestServer, type TestServer, WRITE_KEY} from '../helpers/simulator.js'

const SECRET = 'whsec_Q2hlY2tQdXNoU2VjcmV0+/=Value42'
// a token as it would be pasted anywhere: it must not survive in any form
const LEAK = /whsec_|tp_test_[A-Za-z0-9_-]/

let sim: TestServer
const access: AccessLine[] = []
beforeAll(async () => {
  sim = await startTestServer({memory: true, serve: {accessLog: (line) => access.push(line)}})
})
afterAll(() => sim.close())
beforeEach(async () => {
  expect((await sim.api('POST', '/v1/sim/reset')).status).toBe(200)
  access.length = 0
})

const entry = async (answer: {headers: Headers}) => {
  const read = await sim.api('GET', `/v1/sim/requests/${answer.headers.get('x-request-id')}`, {key: READ_KEY})
  expect(read.status).toBe(200)
  return read.body
}

describe('secrets and keys in the request log and the access line', () => {
  it('redacts a whsec_ secret and a tp_test_ key in the path, the query and the Idempotency-Key', async () => {
    const inPath = await sim.api('GET', `/v1/checks/external/${SECRET}`)
    const query = `secret=hunter2&note=${encodeURIComponent(SECRET)}&${WRITE_KEY}=1`
    const inQuery = await sim.api('GET', `/v1/locations?${query}`)
    const inKey = await sim.api('GET', '/v1/locations', {headers: {'idempotency-key': `retry-${SECRET}`}})

    expect(await entry(inPath)).toMatchObject({path: '/v1/checks/external/[redacted]'})
    expect((await entry(inQuery)).query).toEqual({secret: '[redacted]', note: '[redacted]', '[redacted]': '1'})
    expect((await entry(inKey)).idempotency_key).toBe('retry-[redacted]')
    const list = await sim.api('GET', '/v1/sim/requests?limit=100', {key: READ_KEY})
    expect(list.body.data.length).toBeGreaterThanOrEqual(3)
    expect(JSON.stringify(list.body)).not.toMatch(LEAK)
    // the path filter sees the redacted path only: a secret cannot be found out by its prefix
    const probe = await sim.api('GET', '/v1/sim/requests?path=/v1/checks/external/whsec_', {key: READ_KEY})
    expect(probe.body.data).toEqual([])

    const lines = access.filter((line) => line.path.startsWith('/v1/checks/external/'))
    expect(lines.map((line) => line.path)).toEqual(['/v1/checks/external/[redacted]'])
    for (const line of access) expect(renderRequestLine(line)).not.toMatch(LEAK)
  })

  it('does not take an X-Request-Id that holds a secret or a key: the answer and its entry get an id of their own', async () => {
    for (const given of [`trace-${SECRET.replace(/[+/=]/g, '')}`, `rq-${WRITE_KEY}`]) {
      const answer = await sim.api('GET', '/v1/checks/external/nope', {headers: {'x-request-id': given}})
      const id = answer.headers.get('x-request-id')!
      expect(id).toMatch(/^req_/)
      expect(answer.body.error.request_id).toBe(id)
      expect((await entry(answer)).id).toBe(id)
    }
    expect(JSON.stringify((await sim.api('GET', '/v1/sim/requests?limit=100', {key: READ_KEY})).body)).not.toMatch(LEAK)
    expect(JSON.stringify(access)).not.toMatch(LEAK)
  })

  it('redacts them in both bodies, in values and field names, JSON or not, and in the error message', async () => {
    const refused = await sim.api('PUT', '/v1/checks/external/red-1', {
      body: {...checkWith([['a', 1, 100, `pay with ${SECRET}`]]), [`${WRITE_KEY}`]: SECRET},
      headers: {'idempotency-key': WRITE_KEY},
    })
    expect(refused.status).toBe(422)
    const notJson = await sim.api('PUT', '/v1/checks/external/red-2', {body: `{"note": "${SECRET}" ${WRITE_KEY}`})
    expect(notJson.status).toBe(400)
    // a scratch account's answer holds its new key
    const scratch = await sim.api('POST', '/v1/sim/accounts')
    expect(scratch.text).toMatch(/tp_test_/)

    const logged = await entry(refused)
    expect(logged.request_body.items[0].note).toBe('pay with [redacted]')
    expect(logged.request_body['[redacted]']).toBe('[redacted]')
    expect(logged.idempotency_key).toBe('[redacted]')
    expect(logged.error.code).toBe('validation_failed')
    expect((await entry(notJson)).request_body).toBe('{"note": "[redacted]" [redacted]')
    expect((await entry(scratch)).response_body.api_keys[0].key).toBe('[redacted]')
    for (const answer of [refused, notJson, scratch]) {
      const shown = await entry(answer)
      expect(JSON.stringify(shown)).not.toMatch(LEAK)
      expect(shown.key_hint).toBe('tp_test_…rite')
    }
    for (const line of access) expect(renderRequestLine(line)).not.toMatch(LEAK)
  })
})
