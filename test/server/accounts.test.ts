import {request} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {OTHER_KEY, READ_KEY, startTestServer, type TestServer} from '../helpers/simulator.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({memory: true})
})
afterAll(() => server.close())

describe('scratch accounts (POST /v1/sim/accounts)', () => {
  it("creates an empty account with copies of the caller's locations under new ids, and a working write key", async () => {
    await server.api('PUT', '/v1/checks/external/mine', {body: checkWith([['a', 1, 100]])})
    const created = await server.api('POST', '/v1/sim/accounts')
    expect(created.status).toBe(201)
    const scratch = created.body
    expect(scratch).toMatchObject({object: 'account', scratch_of: 'acct_demo', name: 'Scratch copy of Demo Bistro'})
    expect(scratch.id).toMatch(/^acct_/)
    expect(scratch.locations).toEqual([
      {
        id: expect.stringMatching(/^loc_/),
        object: 'location',
        name: 'Main Room',
        timezone: 'Europe/Paris',
        currency: 'EUR',
        created_at: expect.any(String),
        copy_of: 'loc_main',
      },
    ])
    expect(scratch.locations[0].id).not.toBe('loc_main')
    const key = scratch.api_keys[0].key
    expect(scratch.api_keys).toEqual([{key: expect.stringMatching(/^tp_test_/), scopes: ['read', 'write']}])

    // isolated: the caller's check is not there, the copied location resolves
    expect((await server.api('GET', '/v1/checks', {key})).body.data).toEqual([])
    const push = await server.api('PUT', '/v1/checks/external/mine', {
      key,
      body: checkWith([['b', 1, 200]], {location_id: scratch.locations[0].id}),
    })
    expect(push.status).toBe(201)
    expect((await server.api('GET', '/v1/checks/external/mine')).body.items[0].external_id).toBe('a')
  })

  it('refuses a read whose account is deleted while it runs as its key now is, 401: a lookup, a list', async () => {
    const scratch = (await server.api('POST', '/v1/sim/accounts')).body
    const key = scratch.api_keys[0].key
    const body = checkWith([['a', 1, 100]], {location_id: scratch.locations[0].id})
    const check = (await server.api('PUT', '/v1/checks/external/t1', {key, body})).body
    const paths = ['/v1/checks/external/t1', `/v1/checks/${check.id}`, '/v1/checks', '/v1/events']
    // each read held after its key was read (a fault's delay), while the account is deleted
    const fault = {delay_ms: 1500, match: {method: 'GET'}, times: paths.length}
    expect((await server.api('POST', '/v1/sim/faults', {key, body: fault})).status).toBe(201)
    const held = paths.map((path) => server.api('GET', path, {key}))
    // a fault is gone once it has struck as many times as it may
    await expect.poll(async () => (await server.api('GET', '/v1/sim/faults', {key})).body.data).toEqual([])
    expect((await server.api('DELETE', `/v1/sim/accounts/${scratch.id}`)).status).toBe(200)
    const answers = await Promise.all(held)
    expect(answers.map((answer) => [answer.status, answer.body.error?.code])).toEqual(
      paths.map(() => [401, 'unauthenticated']),
    )
  })

  it('needs the write scope', async () => {
    const answer = await server.api('POST', '/v1/sim/accounts', {key: READ_KEY})
    expect(answer.status).toBe(403)
    expect(answer.body.error.code).toBe('insufficient_scope')
  })

  it('DELETE removes the account and everything in it; its key stops working', async () => {
    const scratch = (await server.api('POST', '/v1/sim/accounts')).body
    const key = scratch.api_keys[0].key
    await server.api('PUT', '/v1/checks/external/t1', {key, body: checkWith([['a', 1, 100]])})
    const deleted = await server.api('DELETE', `/v1/sim/accounts/${scratch.id}`)
    expect(deleted.status).toBe(200)
    expect(deleted.body).toEqual({id: scratch.id, object: 'account', deleted: true})
    const after = await server.api('GET', '/v1/checks', {key})
    expect(after.status).toBe(401)
    expect((await server.api('DELETE', `/v1/sim/accounts/${scratch.id}`)).status).toBe(404)
  })

  it('only the account that made a scratch account may delete it; a seeded account cannot be deleted', async () => {
    const scratch = (await server.api('POST', '/v1/sim/accounts')).body
    const byOther = await server.api('DELETE', `/v1/sim/accounts/${scratch.id}`, {key: OTHER_KEY})
    expect(byOther.status).toBe(404)
    expect(byOther.body.error.code).toBe('not_found')
    expect((await server.api('DELETE', `/v1/sim/accounts/${scratch.id}`, {key: scratch.api_keys[0].key})).status).toBe(
      404,
    )
    expect((await server.api('DELETE', '/v1/sim/accounts/acct_demo')).status).toBe(404)
    expect((await server.api('GET', '/v1/locations')).status).toBe(200)
  })

  it('a change whose key was checked before its account was deleted is refused 401, as its key now is', async () => {
    /**
     * Sends `body` to `path` with the scratch account's key once `between` ran: the request is past its key's
     * check (the server asked for the body, `100 Continue`) before the account goes. Resolves with the status.
     */
    const after = (key: string, path: string, body: unknown, between: () => Promise<void>) =>
      new Promise<number>((resolve, reject) => {
        const text = JSON.stringify(body)
        const headers = {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          expect: '100-continue',
        }
        const sent = request(`${server.url}${path}`, {method: 'POST', headers})
        sent.on('continue', () => void between().then(() => sent.end(text), reject))
        sent.on('response', (answer) => resolve(answer.resume().statusCode!))
        sent.on('error', reject)
      })
    const changes: [string, unknown][] = [
      ['/v1/sim/snapshots', {name: 'late'}],
      ['/v1/sim/faults', {status: 500}],
      [
        '/v1/sim/snapshots/import',
        {tablepay_snapshot: 1, name: 'late', account: 'acct_x', created_at: new Date().toISOString(), records: {}},
      ],
    ]
    for (const [path, body] of changes) {
      const scratch = (await server.api('POST', '/v1/sim/accounts')).body
      const deleteIt = async () => {
        expect((await server.api('DELETE', `/v1/sim/accounts/${scratch.id}`)).status).toBe(200)
      }
      expect([path, await after(scratch.api_keys[0].key, path, body, deleteIt)]).toEqual([path, 401])
    }
  })

  it('deleting a scratch account deletes the scratch accounts it made, whose keys then stop working', async () => {
    const parent = (await server.api('POST', '/v1/sim/accounts')).body
    const child = (await server.api('POST', '/v1/sim/accounts', {key: parent.api_keys[0].key})).body
    expect(child.scratch_of).toBe(parent.id)
    expect((await server.api('DELETE', `/v1/sim/accounts/${parent.id}`)).status).toBe(200)
    expect((await server.api('GET', '/v1/locations', {key: child.api_keys[0].key})).status).toBe(401)
  })
})
