import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {EVENT_TYPES} from '../../src/domain/constants.js'
import {OTHER_KEY, startTestServer, type TestServer} from '../helpers/simulator.js'

let sim: TestServer
beforeAll(async () => {
  sim = await startTestServer()
})
afterAll(async () => {
  await sim.close()
})

/** Each request whose body sets an endpoint's `url`: a creation, one with a known secret, an update of `endpointId`. */
const settingUrl = (url: string, endpointId: string) =>
  [
    ['POST', '/v1/webhook-endpoints', {url}],
    ['POST', '/v1/sim/webhook-endpoints', {url, secret: 'whsec_every_body_that_sets_a_url_00000'}],
    ['PATCH', `/v1/webhook-endpoints/${endpointId}`, {url}],
  ] as const

describe('POST /webhook-endpoints', () => {
  it('without event_types, registers the endpoint for every type', async () => {
    const created = await sim.api('POST', '/v1/webhook-endpoints', {body: {url: 'http://127.0.0.1:9/all'}})
    expect([created.status, created.body.event_types]).toEqual([201, [...EVENT_TYPES]])
    const known = await sim.api('POST', '/v1/sim/webhook-endpoints', {
      body: {url: 'http://127.0.0.1:9/all-known', secret: 'whsec_every_type_when_none_is_named_01'},
    })
    expect([known.status, known.body.event_types]).toEqual([201, [...EVENT_TYPES]])
  })

  it('refuses a URL whose user or password does not decode, which every attempt would fail on, wherever it is set', async () => {
    const url = 'http://user:%ff@127.0.0.1:9/hooks'
    const endpoint = (await sim.api('POST', '/v1/webhook-endpoints', {body: {url: 'http://u:p%20w@127.0.0.1:9/ok'}}))
      .body
    for (const [method, path, body] of settingUrl(url, endpoint.id)) {
      const refused = await sim.api(method, path, {body})
      expect([refused.status, refused.body.error.details]).toEqual([
        422,
        [{path: 'url', message: 'must hold a user and password whose %-escapes decode (they are sent decoded)'}],
      ])
    }
  })

  it('refuses a URL that is not http(s), or no URL at all, with one message that says what to give', async () => {
    for (const url of ['https://example.com:99999/x', 'ftp://127.0.0.1/x', 'not a url', 'http://a b/']) {
      const refused = await sim.api('POST', '/v1/webhook-endpoints', {body: {url}})
      expect([url, refused.status, refused.body.error.details]).toEqual([
        url,
        422,
        [
          {
            path: 'url',
            message: 'must be a valid http:// or https:// URL (scheme, host, port), like https://example.com/webhooks',
          },
        ],
      ])
    }
  })

  it('refuses a URL without a host, or with port 0, which no attempt can reach, on every body that sets one', async () => {
    const endpoint = (await sim.api('POST', '/v1/webhook-endpoints', {body: {url: 'https://u@example.com:1/ok'}})).body
    expect(endpoint.url).toBe('https://u@example.com:1/ok')
    for (const url of ['https:///h', 'http:////127.0.0.1/h', 'https://example.com:0/h', 'http://[::1]:00/h'])
      for (const [method, path, body] of settingUrl(url, endpoint.id)) {
        const refused = await sim.api(method, path, {body})
        expect([url, refused.status, refused.body.error?.details]).toEqual([
          url,
          422,
          [
            {
              path: 'url',
              message: 'must name a host, and a port from 1 to 65535 if any, like https://example.com:8443/hooks',
            },
          ],
        ])
      }
  })

  it('names a url left out as required, as every field left out is', async () => {
    for (const [path, body] of [
      ['/v1/webhook-endpoints', {event_types: ['check.created']}],
      ['/v1/sim/webhook-endpoints', {secret: 'whsec_a_url_left_out_0000000000000000'}],
    ] as const) {
      const refused = await sim.api('POST', path, {body})
      expect([refused.status, refused.body.error.details]).toEqual([
        422,
        [{path: 'url', message: 'Required: expected string'}],
      ])
    }
  })

  it('refuses a URL that is no RFC 3986 URI, as the document says, on every body that sets one', async () => {
    const endpoint = (await sim.api('POST', '/v1/webhook-endpoints', {body: {url: 'http://u:p@[::1]:9/a%20b?q=1#f'}}))
      .body
    expect(endpoint.url).toBe('http://u:p@[::1]:9/a%20b?q=1#f')
    const urls = ['http://127.0.0.1:9/a b', 'http://127.0.0.1:9/café', 'https://bücher.example/h', 'http://h.com/{x}|^']
    for (const url of [...urls, 'http://127.0.0.1:9/%zz', 'http://h.com/?q=[1]', 'https://[::1]@example.com/x'])
      for (const [method, path, body] of settingUrl(url, endpoint.id)) {
        const refused = await sim.api(method, path, {body})
        expect([url, refused.status, refused.body.error.details[0].message]).toEqual([
          url,
          422,
          expect.stringContaining('must be a URI (RFC 3986, the format the API document gives it)'),
        ])
      }
  })

  it('refuses an empty event_types on that field, registering nothing', async () => {
    const before = (await sim.api('GET', '/v1/webhook-endpoints?limit=100')).body.data.length
    const refused = await sim.api('POST', '/v1/webhook-endpoints', {
      body: {url: 'http://127.0.0.1:9/x', event_types: []},
    })
    expect(refused.status).toBe(422)
    expect(refused.body.error).toMatchObject({code: 'validation_failed', details: [{path: 'event_types'}]})
    expect((await sim.api('GET', '/v1/webhook-endpoints?limit=100')).body.data).toHaveLength(before)
  })
})

describe('GET /webhook-endpoints', () => {
  const chosen = (id: string) =>
    sim.api('POST', '/v1/sim/webhook-endpoints', {
      body: {id, url: `http://127.0.0.1:9/${id}`, secret: 'whsec_a_cursor_of_a_chosen_id_0000000'},
    })

  it("pages on from a deleted endpoint's chosen id, as from any deleted record", async () => {
    for (const id of ['we_cursor_first', 'we_cursor_gone', 'we_cursor_last'])
      expect((await chosen(id)).status).toBe(201)
    expect((await sim.api('DELETE', '/v1/webhook-endpoints/we_cursor_gone')).status).toBe(200)
    const after = await sim.api('GET', '/v1/webhook-endpoints?starting_after=we_cursor_gone&limit=1')
    expect([after.status, after.body.data?.map((e: {id: string}) => e.id)]).toEqual([200, ['we_cursor_first']])
    // and from one whose id the server made, as before
    const made = (await sim.api('POST', '/v1/webhook-endpoints', {body: {url: 'http://127.0.0.1:9/made'}})).body.id
    expect((await sim.api('DELETE', `/v1/webhook-endpoints/${made}`)).status).toBe(200)
    const afterMade = await sim.api('GET', `/v1/webhook-endpoints?starting_after=${made}&limit=1`)
    expect([afterMade.status, afterMade.body.data?.map((e: {id: string}) => e.id)]).toEqual([200, ['we_cursor_last']])
  })

  it("refuses another account's deleted endpoint as a cursor, as it refuses one that never was", async () => {
    const gone = (await sim.api('POST', '/v1/webhook-endpoints', {body: {url: 'http://127.0.0.1:9/gone'}})).body.id
    expect((await sim.api('DELETE', `/v1/webhook-endpoints/${gone}`)).status).toBe(200)
    const theirs = await sim.api('GET', `/v1/webhook-endpoints?starting_after=${gone}`, {key: OTHER_KEY})
    const never = await sim.api('GET', '/v1/webhook-endpoints?starting_after=we_never_was', {key: OTHER_KEY})
    expect([theirs.status, theirs.body.error?.code]).toEqual([422, 'validation_failed'])
    expect(theirs.body.error.message).toBe(never.body.error.message.replace('we_never_was', gone))
  })
})
