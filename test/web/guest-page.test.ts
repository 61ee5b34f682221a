import qrcode from 'qrcode'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {call, OTHER_KEY, READ_KEY, startTestServer, type TestServer} from '../helpers/simulator.js'

let sim: TestServer
beforeAll(async () => {
  sim = await startTestServer({memory: true})
})
afterAll(() => sim.close())
beforeEach(async () => {
  await sim.api('POST', '/v1/sim/reset')
})

/** Pushes a check and returns it with the path of its table page (`/t/{token}`). */
async function pushCheck(
  externalId = 't12',
  lines: Parameters<typeof checkWith>[0] = [
    ['a', 2, 1000],
    ['b', 1, 500],
  ],
  key?: string,
) {
  const {status, body} = await sim.api('PUT', `/v1/checks/external/${externalId}`, {
    body: checkWith(lines, key === OTHER_KEY ? {location_id: 'loc_other_a'} : {}),
    key,
  })
  expect(status).toBe(201)
  return {check: body, page: new URL(body.guest_url).pathname}
}

/** A guest's request: no API key at all. */
const guest = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  call(sim.url, method, path, {key: null, body, headers})

/** Server-sent events of a /t/ stream, one `{event, data}` at a time. */
async function openStream(path: string) {
  const controller = new AbortController()
  const response = await fetch(sim.url + path, {signal: controller.signal})
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  return {
    response,
    async next(): Promise<{event: string; data: any}> {
      for (;;) {
        const end = buffer.indexOf('\n\n')
        if (end !== -1) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          if (block.startsWith('event: ping\n')) continue // keep-alive
          return {event: /^event: (.*)$/m.exec(block)![1]!, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!)}
        }
        const {value, done} = await reader.read()
        if (done) throw new Error('stream ended')
        buffer += value
      }
    },
    close: () => controller.abort(),
  }
}

describe('the table page', () => {
  it('is served at guest_url without any key, as HTML that loads only its own files', async () => {
    const {check} = await pushCheck()
    const res = await fetch(check.guest_url)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
    const html = await res.text()
    // relative: the page works under any path a proxy serves it at (serve --public-url)
    expect(html).toContain('<script type="module" src="../assets/guest.js"></script>')
    const script = await fetch(new URL('../assets/guest.js', check.guest_url))
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
  })

  it('an unknown token answers 404 with the standard error body, on the page and on every guest route', async () => {
    for (const [method, path] of [
      ['GET', '/t/gt_unknown'],
      ['GET', '/t/gt_unknown/check'],
      ['GET', '/t/gt_unknown/stream'],
      ['GET', '/t/gt_unknown/location'],
      ['GET', '/t/gt_unknown/qr.svg'],
      ['POST', '/t/gt_unknown/claims'],
      ['POST', '/t/gt_unknown/payments'],
      ['POST', '/t/gt_unknown/feedback'],
    ] as const) {
      const {status, body, headers} = await guest(method, path, method === 'POST' ? {} : undefined)
      expect(status, `${method} ${path}`).toBe(404)
      expect(body.error).toMatchObject({code: 'not_found', request_id: headers.get('x-request-id')})
    }
  })

  it('GET /t/{token}/check answers the check resource, as GET /v1/checks/{id} does', async () => {
    const {check, page} = await pushCheck()
    const {status, body, headers} = await guest('GET', `${page}/check`)
    expect(status).toBe(200)
    expect(headers.get('cache-control')).toBe('no-store')
    expect(body).toEqual((await sim.api('GET', `/v1/checks/${check.id}`, {key: READ_KEY})).body)
  })

  it('ignores query parameters a link gained on its way, where a /v1 route refuses them (docs/api.md)', async () => {
    const {check, page} = await pushCheck()
    expect((await guest('GET', `${page}?utm_source=qr`)).status).toBe(200)
    const {status, body} = await guest('GET', `${page}/check?utm_source=qr`)
    expect(status).toBe(200)
    expect(body).toMatchObject({id: check.id})
    expect((await sim.api('GET', `/v1/checks/${check.id}?utm_source=qr`)).status).toBe(422)
  })
})

describe('a guest token', () => {
  it('is not an API key: every /v1 route answers 401 with it as bearer', async () => {
    const {check} = await pushCheck()
    const token = new URL(check.guest_url).pathname.split('/')[2]!
    for (const [method, path] of [
      ['GET', '/v1/checks'],
      ['GET', `/v1/checks/${check.id}`],
      ['GET', '/v1/events'],
      ['POST', `/v1/sim/checks/${check.id}/claims`],
    ] as const) {
      const {status, body} = await call(sim.url, method, path, {
        key: token,
        body: method === 'POST' ? {items: [{external_id: 'a', quantity: 1}]} : undefined,
      })
      expect(status, `${method} ${path}`).toBe(401)
      expect(body.error.code).toBe('unauthenticated')
    }
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).body.items[0].claimed_quantity).toBe(0)
  })

  it("opens its own check only: its claims change that check, and another check's payment is 404 under it", async () => {
    const mine = await pushCheck('t12')
    const theirs = await pushCheck('t13', [['x', 1, 3000]], OTHER_KEY)
    expect((await guest('GET', `${mine.page}/check`)).body.id).toBe(mine.check.id)
    expect((await guest('GET', `${theirs.page}/check`)).body.id).toBe(theirs.check.id)

    expect((await guest('POST', `${mine.page}/claims`, {items: [{external_id: 'a', quantity: 1}]})).status).toBe(201)
    // the other check has no item "a": the claim was judged against the token's own check
    expect((await guest('POST', `${theirs.page}/claims`, {items: [{external_id: 'a', quantity: 1}]})).status).toBe(422)

    const payment = await guest('POST', `${theirs.page}/payments`, {amount_cents: 1000})
    expect(payment.status).toBe(201)
    const refund = await guest('POST', `${mine.page}/payments/${payment.body.id}/refund`, {})
    expect(refund.status).toBe(404)
    expect(refund.body.error.code).toBe('not_found')
    expect((await guest('GET', `${mine.page}/payments/${payment.body.id}`)).status).toBe(404)
    expect((await sim.api('GET', `/v1/payments/${payment.body.id}`, {key: OTHER_KEY})).body.amount_refunded_cents).toBe(
      0,
    )
  })
})

describe('a payment under /t/{token}', () => {
  it('answers as GET /v1/payments/{id} does, a refund made elsewhere included, and is never cached', async () => {
    const {check, page} = await pushCheck('t12')
    const payment = (await guest('POST', `${page}/payments`, {amount_cents: 1000})).body
    await sim.api('POST', `/v1/sim/payments/${payment.id}/refund`, {body: {amount_cents: 400}})
    const read = await guest('GET', `${page}/payments/${payment.id}`)
    expect(read.status).toBe(200)
    expect(read.headers.get('cache-control')).toBe('no-store')
    expect(read.body).toEqual((await sim.api('GET', `/v1/payments/${payment.id}`)).body)
    expect(read.body).toMatchObject({check_id: check.id, amount_refunded_cents: 400})
    expect((await guest('GET', `${page}/payments/pay_nope`)).status).toBe(404)
  })
})

describe('guest actions on /t/{token}', () => {
  it('claim, pay in full with a tip, refund and feedback each answer like their /v1/sim twins and emit their events', async () => {
    const {check, page} = await pushCheck()
    const claim = await guest('POST', `${page}/claims`, {items: [{external_id: 'a', quantity: 1}]})
    expect(claim.status).toBe(201)
    expect(claim.body).toMatchObject({object: 'claim', check_id: check.id, items: [{external_id: 'a', quantity: 1}]})

    const payment = await guest('POST', `${page}/payments`, {amount_cents: check.amount_due_cents, tip_cents: 300})
    expect(payment.status).toBe(201)
    expect(payment.body).toMatchObject({
      object: 'payment',
      check_id: check.id,
      amount_cents: check.amount_due_cents,
      tip_cents: 300,
      status: 'succeeded',
    })
    expect((await guest('GET', `${page}/check`)).body).toMatchObject({payment_status: 'paid', amount_due_cents: 0})

    const refund = await guest('POST', `${page}/payments/${payment.body.id}/refund`, {amount_cents: 500})
    expect(refund.status).toBe(200)
    expect(refund.body).toMatchObject({id: payment.body.id, amount_refunded_cents: 500})

    const feedback = await guest('POST', `${page}/feedback`, {rating: 5, comment: 'Lovely'})
    expect(feedback.status).toBe(201)
    expect(feedback.body).toMatchObject({object: 'feedback', check_id: check.id, rating: 5, comment: 'Lovely'})

    const types = (await sim.api('GET', '/v1/events?limit=100')).body.data.map((e: {type: string}) => e.type)
    for (const type of [
      'claim.created',
      'payment.succeeded',
      'check.fully_paid',
      'payment.refunded',
      'feedback.received',
    ])
      expect(types).toContain(type)
  })

  it('honours Idempotency-Key: a repeated payment answers the first one and charges once', async () => {
    const {check, page} = await pushCheck()
    const headers = {'idempotency-key': 'pay-once'}
    const first = await guest('POST', `${page}/payments`, {amount_cents: 700}, headers)
    const again = await guest('POST', `${page}/payments`, {amount_cents: 700}, headers)
    expect(first.status).toBe(201)
    expect(again.body.id).toBe(first.body.id)
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).body.amount_paid_cents).toBe(700)
  })

  it("keeps a link's Idempotency-Keys apart from the API key's: a guest cannot block or probe them", async () => {
    const {check, page} = await pushCheck()
    const headers = {'idempotency-key': 'order-42-pay-1'}
    expect((await guest('POST', `${page}/payments`, {amount_cents: 100}, headers)).status).toBe(201)
    const restaurant = await sim.api('POST', `/v1/sim/checks/${check.id}/payments`, {
      body: {amount_cents: 200},
      headers,
    })
    expect(restaurant.status).toBe(201)
    expect(restaurant.headers.get('idempotent-replayed')).toBeNull()
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).body.amount_paid_cents).toBe(300)
  })

  it('refuses a malformed body with the standard 422, changing nothing', async () => {
    const {check, page} = await pushCheck()
    const {status, body} = await guest('POST', `${page}/payments`, {amount_cents: 'lots'})
    expect(status).toBe(422)
    expect(body.error.code).toBe('validation_failed')
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).body.amount_paid_cents).toBe(0)
  })
})

describe('a bad table link', () => {
  it('opened by a browser, answers 404 with a page for guests; a program still gets the error body', async () => {
    const page = await fetch(`${sim.url}/t/gt_unknown`, {
      headers: {accept: 'text/html,application/xhtml+xml,*/*;q=0.8'},
    })
    expect(page.status).toBe(404)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await page.text()
    expect(html).toContain('Scan the QR code on your table again')
    expect(html).not.toMatch(/not_found|request_id/)
    expect((await guest('GET', '/t/gt_unknown')).body.error.code).toBe('not_found')
  })
})

describe('GET /t/{token}/location', () => {
  it("answers the check's location, for its name and currency", async () => {
    const {page} = await pushCheck()
    const {status, body} = await guest('GET', `${page}/location`)
    expect(status).toBe(200)
    expect(body).toEqual({
      id: 'loc_main',
      object: 'location',
      name: 'Main Room',
      timezone: 'Europe/Paris',
      currency: 'EUR',
      created_at: expect.any(String),
    })
  })
})

describe('GET /t/{token}/stream', () => {
  it('sends the current check first, then every change of that check only', async () => {
    const {check, page} = await pushCheck('t12')
    await pushCheck('t13')
    const stream = await openStream(`${page}/stream`)
    try {
      expect(stream.response.headers.get('content-type')).toBe('text/event-stream')
      expect(await stream.next()).toEqual({event: 'check', data: check})

      // a change to another check must not show up before this one's
      await sim.api('PUT', '/v1/checks/external/t13', {body: checkWith([['z', 1, 100]])})
      const pushed = await sim.api('PUT', '/v1/checks/external/t12', {
        body: checkWith([
          ['a', 2, 1000],
          ['b', 1, 500],
          ['c', 1, 250],
        ]),
      })
      const message = await stream.next()
      expect(message).toEqual({event: 'check', data: pushed.body})
    } finally {
      stream.close()
    }
  })

  it('says "gone" when the check is removed', async () => {
    const {check, page} = await pushCheck()
    const stream = await openStream(`${page}/stream`)
    try {
      await stream.next()
      await sim.api('POST', '/v1/sim/reset')
      expect(await stream.next()).toEqual({event: 'gone', data: {id: check.id}})
    } finally {
      stream.close()
    }
  })
})

describe('GET /t/{token}/qr.svg', () => {
  it('is the QR code of guest_url as an SVG image', async () => {
    const {check, page} = await pushCheck()
    const res = await fetch(`${sim.url}${page}/qr.svg`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/svg+xml')
    expect(await res.text()).toBe(await qrcode.toString(check.guest_url, {type: 'svg', margin: 4}))
  })
})

describe('the dashboard', () => {
  it('is a static page at / that needs no key and holds no data', async () => {
    await pushCheck()
    const res = await fetch(`${sim.url}/`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await res.text()
    expect(html).toContain('<script type="module" src="assets/dashboard.js"></script>')
    expect(html).not.toContain('chk_')
  })

  it('answers HEAD like GET, without a body, for uptime checks and curl -I', async () => {
    for (const path of ['/', '/assets/dashboard.js']) {
      const res = await fetch(sim.url + path, {method: 'HEAD'})
      expect(res.status, path).toBe(200)
      expect(await res.text()).toBe('')
    }
  })

  it("serves only the pages' own files under /assets", async () => {
    for (const name of ['dashboard.js', 'dom.js', 'style.css'])
      expect((await fetch(`${sim.url}/assets/${name}`)).status).toBe(200)
    for (const path of ['/assets/nope.js', '/assets/..%2Fassets.ts', '/assets/%2E%2E%2F%2E%2E%2Fpackage.json']) {
      const {status, body} = await guest('GET', path)
      expect(status, path).toBe(404)
      expect(body.error.code).toBe('not_found')
    }
  })
})
