import {mkdir} from 'node:fs/promises'
import {join} from 'node:path'
import {type Browser, chromium, type Locator, type Page} from 'playwright-core'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {EVENT_TYPES} from '../../src/domain/constants.js'
import {CHROMIUM, holdAnswers} from '../helpers/browser.js'
import {checkWith} from '../helpers/checks.js'
import {ROOT} from '../helpers/cli.js'
import {startServerBehindProxy} from '../helpers/prefix-proxy.js'
import {startReceiver} from '../helpers/receiver.js'
import type {Seed} from '../../src/domain/seed-schema.js'
import {startServer} from '../../src/server/start.js'
import {
  call,
  makeTempDir,
  OTHER_KEY,
  READ_KEY,
  startTestServer,
  type TestServer,
  WRITE_KEY,
  writeSeed,
} from '../helpers/simulator.js'

const OUTPUT = join(ROOT, 'test-output')
const GUEST_EVENTS = ['check.fully_paid', 'claim.created', 'feedback.received', 'payment.succeeded']
const PHONE = {width: 390, height: 844}
const HOSTILE = '<img src=x onerror="window.injected=1">'

let sim: TestServer
let receiver: Awaited<ReturnType<typeof startReceiver>>
let browser: Browser
beforeAll(async () => {
  ;[sim, receiver, browser] = await Promise.all([
    startTestServer({memory: true}),
    startReceiver(),
    chromium.launch({executablePath: CHROMIUM}),
  ])
  await mkdir(OUTPUT, {recursive: true})
})
const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** A server of its own whose one account, `id`, has these locations and a read and write `key`; closed after the test. */
async function serverOfOneAccount(id: string, key: string, locations: Seed['accounts'][number]['locations']) {
  const seed = {accounts: [{id, name: id, locations, api_keys: [{key, scopes: ['read', 'write']}]}]}
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    seedFile: await writeSeed(await makeTempDir(), seed as Seed),
  })
  cleanup.push(() => server.close())
  return server
}

afterAll(async () => {
  await browser?.close()
  await receiver?.close()
  await sim?.close()
})

const lines: Parameters<typeof checkWith>[0] = [
  ['steak', 1, 2450, HOSTILE],
  ['wine', 2, 900],
]
const push = (body: ReturnType<typeof checkWith>) => sim.api('PUT', '/v1/checks/external/t12', {body})

/** The page is no wider than the screen: nothing to scroll sideways. */
const sideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

/**
 * What a reader of the page would call broken, as lists (empty when nothing is): text that wraps where it should
 * not (a badge, a button, a choice, a column's name), an option left alone on a row of its own below a row of
 * several, and table rows (those `rows` selects) taller than `maxRow` px.
 */
const layoutFaults = (page: Page, {rows, maxRow}: {rows: string; maxRow: number}) =>
  page.evaluate(
    ({rows, maxRow}) => {
      const visible = (element: PageElement) => element.getClientRects().length > 0
      // the lines it runs over: its boxes of text (and of a radio button) that overlap from top to bottom share one
      const lines = (element: PageElement) => {
        const range = document.createRange()
        range.selectNodeContents(element)
        let count = 0
        let bottom = -Infinity
        for (const box of [...range.getClientRects()].sort((a, b) => a.top - b.top)) {
          const next = box.top >= bottom - 1
          if (next) count++
          bottom = next ? box.bottom : Math.max(bottom, box.bottom)
        }
        return count
      }
      const text = (element: PageElement) => element.textContent!.trim()
      const wrapped = [...document.querySelectorAll('.badge, button, .choices label, th')]
        .filter((element) => visible(element) && lines(element) > 1)
        .map(text)
      const alone = [...document.querySelectorAll('.choices, .badges')].flatMap((group) => {
        const byTop = new Map<number, string[]>()
        for (const item of group.querySelectorAll(':scope > :not(legend)')) {
          const top = Math.round(item.getBoundingClientRect().top)
          byTop.set(top, [...(byTop.get(top) ?? []), text(item)])
        }
        const lined = [...byTop.values()]
        return lined.length > 1 && lined.at(-1)!.length === 1 && lined.some((line) => line.length > 1)
          ? lined.at(-1)!
          : []
      })
      const tall = [...document.querySelectorAll(rows)]
        .filter((row) => row.getBoundingClientRect().height > maxRow)
        .map((row) => `${Math.round(row.getBoundingClientRect().height)} px: ${text(row).slice(0, 40)}`)
      // past the edge of what holds its group (a fieldset grows to fit its choices), as on a screen too narrow
      const overflowing = [...document.querySelectorAll('.choices')].flatMap((group) => {
        const edge = group.parentElement!.getBoundingClientRect().right
        return [...group.querySelectorAll(':scope > label')]
          .filter((item) => visible(item) && item.getBoundingClientRect().right > edge + 0.5)
          .map(text)
      })
      return {wrapped, alone, tall, overflowing}
    },
    {rows, maxRow},
  )

/** A scratch account of the test's own, with an endpoint for `check.created` on a receiver of its own. */
async function scratchWithEndpoint() {
  const scratch = (await sim.api('POST', '/v1/sim/accounts')).body
  const key = scratch.api_keys[0].key as string
  const own = await startReceiver()
  cleanup.push(() => own.close())
  const endpoint = (
    await sim.api('POST', '/v1/webhook-endpoints', {key, body: {url: own.url, event_types: ['check.created']}})
  ).body
  /** Adds `check.updated` to the endpoint, which its table shows, and pushes check `externalId`: the lists reload. */
  const widen = async (externalId: string) => {
    const event_types = ['check.created', 'check.updated']
    await sim.api('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {key, body: {event_types}})
    const body = checkWith([['a', 1, 100]], {location_id: scratch.locations[0].id})
    await sim.api('PUT', `/v1/checks/external/${externalId}`, {key, body})
  }
  return {scratch, key, own, endpoint, widen}
}

/** A scratch account, its write key, and a check of `lines` pushed to table `number` of its first location. */
async function scratchTable(number: string, lines: Parameters<typeof checkWith>[0]) {
  const scratch = (await sim.api('POST', '/v1/sim/accounts')).body
  const key = scratch.api_keys[0].key as string
  const body = checkWith(lines, {table: {number}, location_id: scratch.locations[0].id})
  const created = await sim.api('PUT', `/v1/checks/external/t${number}`, {key, body})
  return {scratch, key, created}
}

/** Claims the tea on `page` with every claim lost on its way; resolves with the notice that says so, once shown. */
async function teaClaimLost(page: Page) {
  await page.route(
    (target) => target.pathname.endsWith('/claims'),
    (route) => route.abort('internetdisconnected'),
  )
  await page.getByRole('button', {name: 'Claim Item tea'}).click()
  const unreachable = page.getByRole('alert').getByText('We could not reach the restaurant.')
  await unreachable.waitFor()
  return unreachable
}

/** Attribute `name` of the control that has the focus on `page` (null: none, or it has no such attribute). */
const focusedAttribute = (page: Page, name: string) =>
  page.evaluate((attribute) => document.activeElement?.getAttribute(attribute) ?? null, name)

/** The answer to what a browser asks for the page's icon: the one it links, else /favicon.ico. */
async function iconOf(page: Page) {
  const link = page.locator('link[rel~="icon"]')
  const linked = (await link.count()) > 0 ? await link.getAttribute('href') : null
  const answer = await page.request.get(new URL(linked ?? '/favicon.ico', page.url()).href)
  return {status: answer.status(), type: answer.headers()['content-type']}
}

/** A page on a phone, in English, closed after the test. */
async function phonePage() {
  const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'en-US'})
  cleanup.push(() => page.close())
  return page
}

/** The table page at `url` on a phone, once it follows the bill live. Closed after the test. */
async function livePage(url: string) {
  const page = await phonePage()
  await page.goto(url)
  await page.getByText('Live:').waitFor()
  return page
}

/**
 * The table page at `url` on a phone whose network drops every stream: it reads the bill, and keeps reconnecting
 * until the test unroutes it. Closed after the test.
 */
async function pageWithoutStream(url: string) {
  const page = await phonePage()
  await page.route(
    (target) => target.pathname.endsWith('/stream'),
    (route) => route.abort('connectionreset'),
  )
  await page.goto(url)
  await page.getByText('Reconnecting').waitFor()
  return page
}

describe('in a real browser', () => {
  it('a guest claims, pays what they claimed then the rest, and leaves feedback on the table page, which follows the POS live', async () => {
    const endpoint = await sim.api('POST', '/v1/webhook-endpoints', {
      body: {url: receiver.url, event_types: GUEST_EVENTS},
    })
    expect(endpoint.status).toBe(201)
    receiver.verifyWith(endpoint.body.secret)
    const created = await push(checkWith(lines, {version: 1}))
    expect(created.status).toBe(201)

    const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'en-US'})
    await page.goto(created.body.guest_url)
    await page.getByRole('heading', {name: 'Table 12'}).waitFor()
    // the stream is open: from here on, POS pushes reach the page
    await page.getByText('Live:').waitFor()
    await page.getByText('Main Room').waitFor()

    // POS strings are shown as text, never run as HTML
    await page.getByText(HOSTILE, {exact: true}).waitFor()
    expect(await page.evaluate(() => (window as {injected?: number}).injected)).toBeUndefined()

    await page.getByRole('button', {name: 'Claim Item steak'}).click()
    // amounts in the location's currency (EUR)
    await page.getByText('1 × €24.50 · 1 of 1 claimed').waitFor()
    // a reader hears what the button shows, then the item
    expect(await page.getByRole('button', {name: 'All claimed: Item steak'}).isDisabled()).toBe(true)

    // the POS adds dessert: it appears without a reload; the amount stays the steak and its share of the tax
    const withDessert = checkWith([...lines, ['dessert', 1, 650]], {version: 2})
    expect((await push(withDessert)).status).toBe(200)
    await page.getByText('Item dessert').waitFor()
    const share = 2450 + Math.ceil((withDessert.totals.tax_cents * 2450) / withDessert.totals.subtotal_cents)
    expect(await page.getByLabel('What I claimed').isChecked()).toBe(true)
    expect(await page.getByLabel('Amount', {exact: true}).inputValue()).toBe((share / 100).toFixed(2))
    await page.getByText('Your items (€24.50) and their share of the tax').waitFor()
    expect(await sideways(page)).toBe(0)
    await page.screenshot({path: join(OUTPUT, 'table-page-phone.png'), fullPage: true})

    await page.getByLabel('10%').check()
    await page.getByRole('button', {name: `Pay €${((share + Math.round(share / 10)) / 100).toFixed(2)}`}).click()
    await page.locator('#payment-status', {hasText: 'Partly paid'}).waitFor()
    const [claim] = (await sim.api('GET', `/v1/checks/${created.body.id}/claims`)).body.data
    const [first] = (await sim.api('GET', `/v1/checks/${created.body.id}/payments`)).body.data
    expect(first).toMatchObject({claim_id: claim.id, amount_cents: share, tip_cents: Math.round(share / 10)})

    // with nothing claimed left to pay, the rest of the bill is the default, once the page has the payment
    // (the stream's update can arrive before the payment's own answer, and the page shows the claim until then)
    const rest = withDessert.totals.total_cents - share
    await page.locator('input[name="for"][value="due"]:checked').waitFor()
    expect(await page.getByLabel('Everything due').isChecked()).toBe(true)
    expect(await page.getByLabel('Amount', {exact: true}).inputValue()).toBe((rest / 100).toFixed(2))
    await page.getByRole('button', {name: /^Pay /}).click()
    await page.getByText('Paid in full', {exact: true}).waitFor()
    expect(await page.locator('#total-due').textContent()).toBe('€0.00')

    // sent without a rating: refused on the page; with one, the refusal is gone with the thanks
    await page.getByRole('button', {name: 'Send feedback'}).click()
    const noRating = page.getByText('Choose a rating from 1 to 5.')
    await noRating.waitFor()
    await page.getByLabel('5', {exact: true}).check()
    await page.getByLabel('Comment (optional)').fill('Great steak')
    await page.getByRole('button', {name: 'Send feedback'}).click()
    await page.getByText('Thank you for your feedback!').waitFor()
    expect(await noRating.isVisible()).toBe(false)

    // the POS closes the paid check: the page shows it, still paid, without a reload
    expect((await push(checkWith([...lines, ['dessert', 1, 650]], {version: 3, status: 'closed'}))).status).toBe(200)
    await page.locator('#check-status', {hasText: 'Closed'}).waitFor()
    expect(await page.locator('#payment-status').textContent()).toBe('Paid in full')
    expect(await sideways(page)).toBe(0)
    await page.screenshot({path: join(OUTPUT, 'table-page.png'), fullPage: true})
    // guests act on an open bill only: its refunds are offered no more
    const refunds = await page.getByRole('button', {name: /^Refund /}).all()
    expect(refunds).toHaveLength(2)
    for (const refund of refunds) expect(await refund.isDisabled()).toBe(true)
    // a guest who opens the closed bill is told why there is no feedback form
    const late = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'en-US'})
    await late.goto(created.body.guest_url)
    await late.getByText('Feedback is taken while the bill is open.').waitFor()
    expect(await late.getByRole('button', {name: 'Send feedback'}).isVisible()).toBe(false)
    await late.close()

    const types = [...GUEST_EVENTS, 'payment.succeeded'].sort()
    await receiver.waitFor(types.length)
    expect(receiver.received.map((r) => JSON.parse(r.body).type).sort()).toEqual(types)
    const payments = receiver.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === 'payment.succeeded')
    expect(payments.map((e) => [e.data.claim_id, e.data.amount_cents])).toEqual([
      [claim.id, share],
      [null, rest],
    ])
    await page.close()
  })

  it('a bill the page asked for before a live update, answered after it, does not take the page back', async () => {
    const soup = (version: number, more: typeof lines = []) =>
      checkWith([['soup', 1, 800], ...more], {table: {number: '31'}, version})
    const created = await sim.api('PUT', '/v1/checks/external/t31', {body: soup(1)})
    const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'en-US'})
    await page.goto(created.body.guest_url)
    await page.getByText('Live:').waitFor()

    // the bill a claim reloads is answered by the server at once, and reaches the page only once the POS has
    // changed the check since and the stream has shown that: the order a busy network can give them
    const bill = await holdAnswers(page, (url) => url.pathname.endsWith('/check'))
    await page.getByRole('button', {name: 'Claim Item soup'}).click()
    await page.getByText('1 × €8.00 · 1 of 1 claimed').waitFor()
    await bill.fetched
    expect((await sim.api('PUT', '/v1/checks/external/t31', {body: soup(2, [['bread', 1, 300]])})).status).toBe(200)
    await page.getByText('Item bread').waitFor()
    await page.locator('#bill[aria-busy="true"]').waitFor()

    bill.release()
    await page.locator('#bill:not([aria-busy])').waitFor()
    expect(await page.getByText('Item bread').isVisible()).toBe(true)
    await page.close()
  })

  it('a guest is told what went wrong in words for guests, never in API terms', async () => {
    const created = await sim.api('PUT', '/v1/checks/external/t30', {
      body: checkWith([['soup', 1, 800]], {table: {number: '30'}}),
    })
    const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'en-US'})
    await page.goto(created.body.guest_url)
    await page.getByText('Live:').waitFor()
    const alert = page.getByRole('alert')

    // past the most one payment can be (10^12 cents), an amount is more than is due, not an entry to check
    await page.getByLabel('Amount', {exact: true}).fill('10000000000.01')
    await page.getByRole('button', {name: /^Pay /}).click()
    await alert.getByText('That is more than is left to pay (€8.80). Enter a smaller amount.').waitFor()

    await page.getByLabel('Amount', {exact: true}).fill('100')
    await page.getByRole('button', {name: /^Pay /}).click()
    await alert.getByText('That is more than is left to pay (€8.80). Enter a smaller amount.').waitFor()

    await page.getByLabel('Everything due').check()
    await page.getByLabel('Simulate a declined card').check()
    await page.getByRole('button', {name: /^Pay /}).click()
    await alert.getByText('Your card was declined. Nothing was charged.').waitFor()
    expect(await page.locator('body').textContent()).not.toMatch(/amount_cents|simulate|"decline"|validation_failed/)
    await page.close()
  })

  it("a free item's claim is nothing to pay: once the tab's other claims are paid, everything due is the default", async () => {
    const {created} = await scratchTable('41', [
      ['bread', 1, 0],
      ['burger', 1, 1500],
      ['wine', 1, 800],
    ])
    const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'en-US'})
    cleanup.push(() => page.close())
    await page.goto(created.body.guest_url)
    await page.getByText('Live:').waitFor()
    const whatIClaimed = page.getByLabel('What I claimed')
    await page.getByRole('button', {name: 'Claim Item bread'}).click()
    await page.getByText('You claimed 1 × Item bread.').waitFor()
    expect(await whatIClaimed.isVisible()).toBe(false)
    await page.getByRole('button', {name: 'Claim Item burger'}).click()
    await whatIClaimed.waitFor()
    await page.getByRole('button', {name: /^Pay /}).click()
    await page.getByText(/^Paid .* Thank you!$/).waitFor()
    await whatIClaimed.waitFor({state: 'hidden'})
    expect(await page.getByLabel('Everything due').isChecked()).toBe(true)
    expect(await page.getByRole('button', {name: /^Pay €/}).isVisible()).toBe(true)
  })

  it('guests who each pay what they claimed pay the whole bill: no cent of the tax is left due', async () => {
    // a tax of 100 on three items of 333: a third of it is 33.33 cents
    const items = ['a', 'b', 'c']
    const {key, created} = await scratchTable('47', [
      ['a', 1, 333],
      ['b', 1, 333],
      ['c', 1, 333],
    ])
    expect(created.body.totals).toMatchObject({subtotal_cents: 999, tax_cents: 100})
    for (const item of items) {
      const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'en-US'})
      cleanup.push(() => page.close())
      await page.goto(created.body.guest_url)
      await page.getByText('Live:').waitFor()
      await page.getByRole('button', {name: `Claim Item ${item}`}).click()
      await page.getByLabel('What I claimed').waitFor()
      await page.getByRole('button', {name: /^Pay /}).click()
      await page.getByText(/^Paid .* Thank you!$/).waitFor()
    }
    const payments = (await sim.api('GET', `/v1/checks/${created.body.id}/payments`, {key})).body.data
    expect(payments.map((p: {amount_cents: number}) => p.amount_cents).sort()).toEqual([365, 367, 367])
    expect((await sim.api('GET', `/v1/checks/${created.body.id}`, {key})).body.amount_due_cents).toBe(0)
    const paid = await sim.api('GET', '/v1/events?type=check.fully_paid', {key})
    expect(paid.body.data.map((e: {data: {id: string}}) => e.data.id)).toEqual([created.body.id])
  })

  it('the table page forgets claims a restore took away, offers a claim again once its payment is refunded (here or elsewhere), shows a refund made elsewhere, and stands down once the bill is removed', async () => {
    const {key, created} = await scratchTable('40', [
      ['soup', 1, 800],
      ['tea', 1, 300],
    ])
    expect((await sim.api('POST', '/v1/sim/snapshots', {key, body: {name: 'no-claims'}})).status).toBe(201)
    const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'en-US'})
    await page.goto(created.body.guest_url)
    await page.getByText('Live:').waitFor()
    const whatIClaimed = page.getByLabel('What I claimed')
    await page.getByRole('button', {name: 'Claim Item soup'}).click()
    await whatIClaimed.waitFor()

    // the restore took the claim away: paying it would be refused, and the page no longer says it was made
    await page.getByText('You claimed 1 × Item soup.').waitFor()
    expect((await sim.api('POST', '/v1/sim/snapshots/no-claims/restore', {key})).status).toBe(200)
    await whatIClaimed.waitFor({state: 'hidden'})
    await page.getByText('The restaurant reset this bill: claim again what you had.').waitFor()
    expect(await page.getByText('You claimed 1 × Item soup.').count()).toBe(0)

    // paid, then refunded on the page, a claim is unpaid again
    await page.getByRole('button', {name: 'Claim Item soup'}).click()
    await whatIClaimed.waitFor()
    await page.getByRole('button', {name: /^Pay /}).click()
    await page.getByText(/^Paid .* Thank you!$/).waitFor()
    await whatIClaimed.waitFor({state: 'hidden'})
    await page.getByRole('button', {name: /^Refund /}).click()
    await page.getByText('Payment refunded.').waitFor()
    await whatIClaimed.waitFor()
    // and paid again (what it claimed, the default once more), it is paid: not offered a third time
    await page.getByRole('button', {name: /^Pay /}).click()
    await page.getByText(/^Paid .* Thank you!$/).waitFor()
    await page.locator('#payments li', {hasText: '€8.80 · succeeded'}).waitFor()
    await whatIClaimed.waitFor({state: 'hidden'})

    // a refund made through the API shows in the tab's payments, whose Refund button then stands down
    await page.getByLabel('Everything due').check()
    await page.getByRole('button', {name: /^Pay /}).click()
    await page.getByText(/^Paid .* Thank you!$/).waitFor()
    const [paid] = (await sim.api('GET', `/v1/checks/${created.body.id}/payments`, {key})).body.data
    expect((await sim.api('POST', `/v1/sim/payments/${paid.id}/refund`, {key, body: {}})).status).toBe(200)
    await expect.poll(() => page.locator('#payments li', {hasText: '· refunded ('}).count()).toBe(2)
    expect(
      await page.locator('#payments li', {hasText: '· refunded ('}).locator('button:not([disabled])').count(),
    ).toBe(0)
    // one made elsewhere of what paid the claims offers them again, as the default once more
    const payments = (await sim.api('GET', `/v1/checks/${created.body.id}/payments`, {key})).body.data
    const forClaims = payments.find((p: {amount_refunded_cents: number}) => p.amount_refunded_cents === 0)
    expect((await sim.api('POST', `/v1/sim/payments/${forClaims.id}/refund`, {key, body: {}})).status).toBe(200)
    await whatIClaimed.waitFor()
    await expect.poll(() => page.getByLabel('What I claimed').isChecked()).toBe(true)

    // the bill removed, nothing on the page acts on it any more
    expect((await sim.api('POST', '/v1/sim/reset', {key})).status).toBe(200)
    await page.getByText('The restaurant has removed this bill').waitFor()
    expect(await page.locator('button:not([disabled])').count()).toBe(0)
    // nor shows the bill as if it were still there
    expect(await page.getByRole('heading', {name: 'Items'}).isVisible()).toBe(false)
    expect(await page.locator('#check-status').isVisible()).toBe(false)
    await page.close()
  })

  it('a payment or a claim whose answer is lost is made once: the page sends it again under its key, and knows it as its own', async () => {
    const {key, created} = await scratchTable('42', [
      ['soup', 2, 800],
      ['tea', 1, 300],
    ])
    const page = await livePage(created.body.guest_url)
    /** Makes the next `times` requests to `path` on the server, and loses each answer on its way back. */
    const loseAnswers = async (path: string, times: number) => {
      let lost = 0
      await page.route(
        (url) => url.pathname.endsWith(path),
        async (route) => {
          if (lost++ >= times) return route.continue()
          await route.fetch()
          await route.abort('connectionreset')
        },
      )
    }

    // a claim: sent again at once, the server answers the claim it made
    await loseAnswers('/claims', 1)
    await page.getByRole('button', {name: 'Claim Item soup'}).click()
    await page.getByText('You claimed 1 × Item soup.').waitFor()
    await page.getByLabel('What I claimed').waitFor()
    const claims = (await sim.api('GET', `/v1/checks/${created.body.id}/claims`, {key})).body.data
    expect(claims).toHaveLength(1)

    // a payment whose answers are all lost: the guest tries again, and pays once
    await page.unrouteAll()
    await loseAnswers('/payments', 3)
    await page.getByRole('button', {name: /^Pay /}).click()
    await page.getByRole('alert').getByText('We could not reach the restaurant').waitFor()
    await page.getByRole('button', {name: /^Pay /}).click()
    await page.getByText('Paid €8.80. Thank you!').waitFor()
    const payments = (await sim.api('GET', `/v1/checks/${created.body.id}/payments`, {key})).body.data
    expect(payments.map((p: {amount_cents: number; claim_id: string}) => [p.amount_cents, p.claim_id])).toEqual([
      [880, claims[0].id],
    ])
    await page.getByLabel('What I claimed').waitFor({state: 'hidden'})
  })

  it("the POS's text reorders only itself, never the sentence it is in: U+202E in an item's name or a table's number", async () => {
    const {key, scratch} = await scratchTable('43', [])
    const body = checkWith([['bidi', 1, 500]], {table: {number: '\u202e43'}, location_id: scratch.locations[0].id})
    body.items[0]!.name = '\u202eBurrata'
    const pushed = await sim.api('PUT', '/v1/checks/external/bidi', {key, body})
    expect(pushed.status).toBe(201)
    /** Whether `after`, the text that follows the POS text `pos` in `place`, is drawn after it, to its right. */
    const inOrder = (place: Locator, pos: string, after: string) =>
      place.evaluate(
        (node: PageElement, {pos, after}) => {
          const texts: PageElement[] = []
          const walk = (at: PageElement): void => {
            if (at.nodeType === 3) texts.push(at)
            else Array.from(at.childNodes).forEach(walk)
          }
          walk(node)
          let from = {text: 0, index: 0}
          /** Where `text` is drawn: the first time it is written past the last text found. */
          const drawn = (text: string) => {
            for (let t = from.text; t < texts.length; t++) {
              const i = texts[t]!.textContent!.indexOf(text, t === from.text ? from.index : 0)
              if (i < 0) continue
              const range = document.createRange()
              range.setStart(texts[t]!, i)
              range.setEnd(texts[t]!, i + text.length)
              from = {text: t, index: i + text.length}
              return range.getBoundingClientRect()
            }
            throw new Error(`no ${text}`)
          }
          const first = drawn(pos)
          return drawn(after).left >= first.right - 1
        },
        {pos, after},
      )
    const guest = await livePage(pushed.body.guest_url)
    await guest.getByRole('button', {name: /^Claim /}).click()
    await guest.locator('#notice').getByText('You claimed 1 ×').waitFor()
    // the full stop stays after the name
    expect(await inOrder(guest.locator('#notice'), '\u202eBurrata', '.')).toBe(true)
    // the check's own id stays after its table's number
    const dashboard = await browser.newPage({viewport: {width: 1280, height: 900}})
    cleanup.push(() => dashboard.close())
    await dashboard.goto(`${sim.url}/#key=${key}`)
    await dashboard.locator('#checks td', {hasText: 'bidi'}).waitFor()
    expect(
      await inOrder(dashboard.locator('#checks td:has(.table-number)', {hasText: 'bidi'}), '\u202e43', 'bidi'),
    ).toBe(true)
  })

  it('a guest on the keyboard keeps their place: after their own claim, and when another guest changes the bill', async () => {
    const {key, created} = await scratchTable('48', [
      ['soup', 2, 800],
      ['tea', 1, 300],
    ])
    const page = await livePage(created.body.guest_url)
    const focused = () => focusedAttribute(page, 'aria-label')
    await page.getByRole('button', {name: 'Claim Item soup'}).focus()
    await page.keyboard.press('Enter')
    await page.getByText('You claimed 1 × Item soup.').waitFor()
    await expect.poll(focused).toBe('Claim Item soup')

    await page.getByRole('button', {name: 'Claim Item tea'}).focus()
    const other = {body: {items: [{external_id: 'soup', quantity: 1}]}, key}
    expect((await sim.api('POST', `/v1/sim/checks/${created.body.id}/claims`, other)).status).toBe(201)
    await page.getByText('2 of 2 claimed').waitFor()
    expect(await focused()).toBe('Claim Item tea')
  })

  it('a guest on the keyboard who claims the last unit or pays the bill lands on what the page says it did', async () => {
    const {created} = await scratchTable('49', [['tea', 1, 300]])
    const page = await livePage(created.body.guest_url)
    const focused = () => focusedAttribute(page, 'id')
    await page.getByRole('button', {name: 'Claim Item tea'}).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('button', {name: 'All claimed: Item tea'}).waitFor()
    await expect.poll(focused).toBe('notice')
    expect(await page.locator('#notice').textContent()).toBe('You claimed 1 × Item tea.')

    await page.getByRole('button', {name: /^Pay /}).focus()
    await page.keyboard.press('Enter')
    await page.getByText('Paid in full', {exact: true}).waitFor()
    await expect.poll(focused).toBe('notice')
    expect(await page.locator('#notice').textContent()).toMatch(/^Paid .+\. Thank you!$/)
  })

  it("a second tap while a claim is under way claims nothing more: the live update's new buttons wait for it", async () => {
    const {key, created} = await scratchTable('43', [['water', 20, 200]])
    const page = await livePage(created.body.guest_url)
    const claimed = await holdAnswers(page, (url) => url.pathname.endsWith('/claims'))
    const claim = page.getByRole('button', {name: 'Claim Item water'})
    await claim.click()
    // the stream shows the claim before its answer: the button it draws stays disabled
    await page.getByText('1 of 20 claimed').waitFor()
    expect(await claim.isDisabled()).toBe(true)
    claimed.release()
    await page.getByText('You claimed 1 × Item water.').waitFor()
    await expect.poll(() => claim.isEnabled()).toBe(true)
    expect((await sim.api('GET', `/v1/checks/${created.body.id}/claims`, {key})).body.data).toHaveLength(1)
  })

  it('with its live updates away, the table page says what is due now, that an item left the bill, and stands down once the bill is gone', async () => {
    const {key, created} = await scratchTable('44', [
      ['soup', 1, 800],
      ['tea', 1, 300],
    ])
    const page = await pageWithoutStream(created.body.guest_url)
    await page.getByRole('button', {name: 'Claim Item tea'}).waitFor()
    const alert = page.getByRole('alert')

    // another guest paid meanwhile: the refusal quotes what is due now, which the bill then shows
    const pay = {key, body: {amount_cents: 500}}
    expect((await sim.api('POST', `/v1/sim/checks/${created.body.id}/payments`, pay)).status).toBe(201)
    await page.getByLabel('Everything due').check()
    await page.getByRole('button', {name: /^Pay /}).click()
    await alert.getByText('That is more than is left to pay (€7.10). Enter a smaller amount.').waitFor()

    // the POS took the tea off the bill
    const soup = checkWith([['soup', 1, 800]], {table: {number: '44'}, location_id: created.body.location_id})
    expect((await sim.api('PUT', '/v1/checks/external/t44', {key, body: {...soup, version: 2}})).status).toBe(200)
    await page.getByRole('button', {name: 'Claim Item tea'}).click()
    await alert.getByText('Item tea is no longer on the bill.').waitFor()

    // the bill removed: an action says so and leaves nothing to act on, as does the stream once it is back
    expect((await sim.api('POST', '/v1/sim/reset', {key})).status).toBe(200)
    await page.getByRole('button', {name: 'Claim Item soup'}).click()
    await alert.getByText('This table link no longer works').waitFor()
    expect(await page.locator('button:not([disabled])').count()).toBe(0)
    expect(await page.getByRole('heading', {name: 'Items'}).isVisible()).toBe(false)
  })

  it('the table page takes back "could not reach the restaurant" once its stream is back', async () => {
    const {created} = await scratchTable('50', [['tea', 1, 300]])
    const page = await pageWithoutStream(created.body.guest_url)
    const unreachable = await teaClaimLost(page)
    await page.unrouteAll()
    await page.getByText('Live:').waitFor()
    await unreachable.waitFor({state: 'hidden'})
    expect(await page.locator('#notice').isHidden()).toBe(true)
  })

  it('the table page takes back "could not reach the restaurant" at the next change its open stream brings', async () => {
    const {key, created} = await scratchTable('51', [['tea', 1, 300]])
    const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'en-US'})
    cleanup.push(() => page.close())
    await page.goto(created.body.guest_url)
    await page.getByText('Live:').waitFor()
    // the claim is lost on its way, the stream stays open
    const unreachable = await teaClaimLost(page)
    // as when the action's button is disabled on its return: the notice holds the focus
    await page.locator('#notice').focus()
    const body = checkWith(
      [
        ['tea', 1, 300],
        ['cake', 1, 450],
      ],
      {table: {number: '51'}, location_id: created.body.location_id},
    )
    expect((await sim.api('PUT', '/v1/checks/external/t51', {key, body})).status).toBe(200)
    await page.getByText('Item cake').waitFor()
    await unreachable.waitFor({state: 'hidden'})
    // the focus is not dropped to the page's body with the notice
    expect(await focusedAttribute(page, 'id')).toBe('title')
  })

  it('the table page stands down when its stream, back after the bill was removed, is refused', async () => {
    const {key, created} = await scratchTable('45', [['soup', 1, 800]])
    const page = await pageWithoutStream(created.body.guest_url)
    expect((await sim.api('POST', '/v1/sim/reset', {key})).status).toBe(200)
    await page.unrouteAll()
    await page.getByRole('alert').getByText('This table link no longer works').waitFor({timeout: 15_000})
    expect(await page.locator('button:not([disabled])').count()).toBe(0)
  })

  it('the table page works behind a proxy that serves it under a path (serve --public-url), with a trailing slash too', async () => {
    const {server, close} = await startServerBehindProxy('/sandbox')
    cleanup.push(close)
    const body = checkWith([['soup', 1, 800]], {table: {number: '46'}})
    const created = await server.api('PUT', '/v1/checks/external/t46', {body})
    expect(created.body.guest_url).toMatch(/\/sandbox\/t\/gt_/)
    const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'en-US'})
    cleanup.push(() => page.close())
    const answered: string[] = []
    page.on('response', (response) => answered.push(`${response.status()} ${new URL(response.url()).pathname}`))
    for (const url of [created.body.guest_url, `${created.body.guest_url}/?from=qr`]) {
      answered.length = 0
      await page.goto(url)
      await page.getByText('Live:').waitFor()
      expect(new URL(page.url()).pathname).toBe(new URL(created.body.guest_url).pathname)
      // the page's own files, through the proxy
      expect(answered).toEqual(
        expect.arrayContaining(['200 /sandbox/assets/style.css', '200 /sandbox/assets/guest.js']),
      )
      expect(answered.filter((line) => !/^[23]/.test(line))).toEqual([])
    }
    await page.getByRole('button', {name: 'Claim Item soup'}).click()
    await page.getByText('You claimed 1 × Item soup.').waitFor()
  })

  it('the table page says it needs JavaScript when it is off, and shows no form that would do nothing', async () => {
    const body = checkWith([['soup', 1, 800]], {table: {number: '47'}})
    const created = await sim.api('PUT', '/v1/checks/external/t47', {body})
    const page = await browser.newPage({viewport: PHONE, isMobile: true, javaScriptEnabled: false})
    cleanup.push(() => page.close())
    await page.goto(created.body.guest_url)
    // playwright's text search leaves <noscript> out: its message is found by its place
    const message = page.locator('noscript .notice')
    expect([await message.isVisible(), await message.textContent()]).toEqual([
      true,
      expect.stringContaining('needs JavaScript'),
    ])
    expect(await page.locator('form:visible').count()).toBe(0)
    expect(await page.getByText('Connecting').count()).toBe(0)
  })

  it("the table page follows a refund of a payment's tip alone, made elsewhere, which leaves the check as it was, within 10 s", async () => {
    const {key, created} = await scratchTable('41', [['soup', 1, 1000]])
    const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'en-US'})
    // the page's timers run on a clock the test moves
    await page.clock.install()
    await page.goto(created.body.guest_url)
    await page.getByText('Live:').waitFor()
    await page.getByLabel('20%').check()
    await page.getByRole('button', {name: /^Pay /}).click()
    await page.getByText(/^Paid .* Thank you!$/).waitFor()
    const [paid] = (await sim.api('GET', `/v1/checks/${created.body.id}/payments`, {key})).body.data
    const refund = (amount?: number) =>
      sim.api('POST', `/v1/sim/payments/${paid.id}/refund`, {
        key,
        body: amount === undefined ? {} : {amount_cents: amount},
      })
    // the bill's part first: the check's paid amount changes
    expect((await refund(paid.amount_cents)).status).toBe(200)
    await page.locator('#payments li', {hasText: '· partially refunded ('}).waitFor()
    // then the tip alone: the check stays as it was, the payment is refunded in full
    const before = (await sim.api('GET', `/v1/checks/${created.body.id}`, {key})).body
    expect((await refund()).body.status).toBe('refunded')
    expect((await sim.api('GET', `/v1/checks/${created.body.id}`, {key})).body).toEqual(before)
    // the page reads its payments again every 10 s: the stream sends the check, which did not change
    await page.clock.runFor(10_000)
    const refunded = page.locator('#payments li', {hasText: '· refunded ('})
    await refunded.waitFor()
    expect(await refunded.getByRole('button').isDisabled()).toBe(true)
    await page.close()
  })

  it("the table page shows a check the POS moved to another location in that location's name and currency", async () => {
    const key = 'tp_test_rooms_write'
    const locations = [
      {id: 'loc_paris', name: 'Paris Room', timezone: 'Europe/Paris', currency: 'EUR'},
      {id: 'loc_tokyo', name: 'Tokyo Room', timezone: 'Asia/Tokyo', currency: 'JPY'},
    ]
    const rooms = await serverOfOneAccount('acct_rooms', key, locations)
    const moved = (version: number, location_id: string) =>
      call(rooms.url, 'PUT', '/v1/checks/external/moved', {
        body: checkWith([['ramen', 1, 5000]], {
          version,
          location_id,
          totals: {subtotal_cents: 5000, tax_cents: 0, total_cents: 5000},
        }),
        key,
      })
    const created = await moved(1, 'loc_paris')
    expect(created.status).toBe(201)
    const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'en-US'})
    cleanup.push(() => page.close())
    await page.goto(created.body.guest_url)
    await page.getByText('Live:').waitFor()
    await page.getByText('Paris Room').waitFor()
    await page.getByText('1 × €50.00').waitFor()
    expect((await moved(2, 'loc_tokyo')).status).toBe(200)
    await page.getByText('Tokyo Room').waitFor()
    await page.getByText('1 × ¥5,000').waitFor()
    await page.getByRole('button', {name: 'Pay ¥5,000'}).waitFor()
  })

  it('the table page takes an amount written as it shows amounts, and says when the tip is what is too much', async () => {
    // the most a check may total: with any tip, a payment of all of it is more than a payment can be
    const body = checkWith([['feast', 1, 909_090_909_091]], {table: {number: '42'}})
    expect(body.totals.total_cents).toBeLessThanOrEqual(1_000_000_000_000)
    const created = await sim.api('PUT', '/v1/checks/external/t42', {body})
    const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'en-US'})
    await page.goto(created.body.guest_url)
    await page.getByText('Live:').waitFor()
    await page.getByLabel('10%').check()
    await page.getByRole('button', {name: /^Pay /}).click()
    await page
      .getByText('With this tip the payment is more than one payment can be. Choose a smaller tip, or none.')
      .waitFor()
    // grouped in thousands, as the page writes €1,747.50
    await page.getByLabel('None').check()
    await page.getByLabel('Amount', {exact: true}).fill('1,747.50')
    await page.getByRole('button', {name: 'Pay €1,747.50'}).click()
    await page.getByText('Paid €1,747.50. Thank you!').waitFor()
    await page.close()
  })

  it("the pages read an amount as the guest's language writes it, and as the page itself writes it", async () => {
    const cases = {
      'en-US': {
        '1,747.50': 174750,
        '1,747': 174700,
        '12,50': 1250,
        '0,500': NaN,
        '1,747,50': NaN,
        kwd: {'3.168': 3168},
        jpy: {'1,747': 1747},
      },
      // German groups thousands with `.`; the page writes 3.168 KWD as `3.168`, which stays a decimal, and a yen
      // amount has no decimals
      'de-DE': {
        '1.747,50': 174750,
        '1.747': 174700,
        '12,50': 1250,
        '12.50': 1250,
        kwd: {'3.168': 3168, '3,168': 3168, '1.234,500': 1234500},
        jpy: {'1.747': 1747, '12.345.678': 12345678},
      },
      'fr-FR': {'1 747,50': 174750, '1\u202f747,50': 174750, kwd: {'3.168': 3168}, jpy: {'1 747': 1747}},
      // the digits and decimal sign the page writes in Arabic and Persian, as their keypads type them, and ASCII
      'ar-EG': {'١٢٫٥٠': 1250, '١٬٧٤٧٫٥٠': 174750, '12.50': 1250, kwd: {'٣٫١٦٨': 3168}, jpy: {'١٬٧٤٧': 1747}},
      'fa-IR': {'۱۲٫۵۰': 1250, '12': 1200, kwd: {'۳٫۱۶۸': 3168}, jpy: {'۱۲': 12}},
      // Indian English groups by two above the thousands
      'en-IN': {
        '1,00,000.50': 10000050,
        '17,47,500': 174750000,
        '1,747.50': 174750,
        '12,50': 1250,
        '1,0,000': NaN,
        kwd: {'3.168': 3168},
        jpy: {'1,00,000': 100000},
      },
    }
    for (const [locale, {kwd, jpy, ...eur}] of Object.entries(cases)) {
      const page = await browser.newPage({locale})
      await page.goto(`${sim.url}/`)
      // the page's own module, as the browser loads it: a string, which vitest does not rewrite as it does code
      const read = await page.evaluate(`import('/assets/dom.js').then(({currency}) => ({
        eur: ${JSON.stringify(Object.keys(eur))}.map((text) => currency('EUR').parse(text)),
        kwd: ${JSON.stringify(Object.keys(kwd))}.map((text) => currency('KWD').parse(text)),
        jpy: ${JSON.stringify(Object.keys(jpy))}.map((text) => currency('JPY').parse(text)),
      }))`)
      expect(read, locale).toEqual({eur: Object.values(eur), kwd: Object.values(kwd), jpy: Object.values(jpy)})
      await page.close()
    }
  })

  it('a bad or expired table link opens a page that says what to do, not an error body', async () => {
    const page = await browser.newPage({viewport: PHONE, isMobile: true})
    const answer = await page.goto(`${sim.url}/t/gt_${'0'.repeat(32)}`)
    expect(answer?.status()).toBe(404)
    await page.getByRole('heading', {name: 'This table link does not work'}).waitFor()
    await page.getByText('Scan the QR code on your table again').waitFor()
    await page.close()
  })

  it('the dashboard, opened with the read key in its link, lists the checks, opens a QR code on demand and updates live', async () => {
    // its own endpoint, check, payment and feedback: the test needs no other test before it
    const own = await startReceiver()
    cleanup.push(() => own.close())
    const endpoint = await sim.api('POST', '/v1/webhook-endpoints', {body: {url: own.url, event_types: GUEST_EVENTS}})
    const check = (
      await sim.api('PUT', '/v1/checks/external/t13', {body: checkWith([['soup', 1, 800]], {table: {number: '13'}})})
    ).body
    const paid = await sim.api('POST', `/v1/sim/checks/${check.id}/payments`, {
      body: {amount_cents: check.amount_due_cents},
    })
    expect(paid.status).toBe(201)
    expect((await sim.api('POST', `/v1/sim/checks/${check.id}/feedback`, {body: {rating: 5}})).status).toBe(201)

    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    await page.goto(`${sim.url}/#key=${READ_KEY}`)
    await page.locator('#endpoints td[data-label="URL"]', {hasText: own.url}).waitFor()
    // this check's events and their deliveries to this endpoint, whatever other tests left in the account
    await page.locator('#events summary', {hasText: 'check.fully_paid'}).filter({hasText: check.id}).waitFor()
    const deliveries = (await sim.api('GET', `/v1/deliveries?endpoint_id=${endpoint.body.id}`)).body.data
    expect(deliveries).toHaveLength(3) // payment.succeeded, check.fully_paid, feedback.received
    for (const delivery of deliveries) {
      await page
        .getByRole('button', {name: `Retry delivery ${delivery.id}`, includeHidden: true})
        .waitFor({state: 'attached'})
    }
    await page.getByRole('button', {name: 'Show the QR code of table 13'}).click()
    const qr = page.getByRole('dialog').getByRole('img', {name: 'QR code of table 13'})
    await qr.waitFor()
    // decode() waits for the image to load, and fails for a broken one
    expect(
      await qr.evaluate((img: HTMLImageElement) =>
        img.decode().then(
          () => img.naturalWidth > 0,
          () => false,
        ),
      ),
    ).toBe(true)
    await page.screenshot({path: join(OUTPUT, 'dashboard-qr.png')})
    await page.getByRole('dialog').getByRole('button', {name: 'Close'}).click()
    await page.getByRole('dialog').waitFor({state: 'hidden'})
    await page.getByText('● Live').waitFor()

    await sim.api('PUT', '/v1/checks/external/t14', {body: checkWith([['tea', 1, 300]], {table: {number: '14'}})})
    await page.getByRole('button', {name: 'Show the QR code of table 14'}).waitFor()
    await page.screenshot({path: join(OUTPUT, 'dashboard.png'), fullPage: true})
    await page.close()
  })

  /** What the dashboard at `origin`, opened with `key`, shows in the number columns of the check `externalId`. */
  async function dashboardAmounts(origin: string, key: string, externalId: string) {
    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    try {
      await page.goto(`${origin}/#key=${key}`)
      const row = page.locator('#checks tr', {hasText: externalId})
      await row.waitFor()
      return await row.locator('td.num').allTextContents()
    } finally {
      await page.close()
    }
  }

  it("the pages write quantities as the reader's language writes numbers", async () => {
    const body = checkWith([['wine', 1.5, 1000]], {table: {number: '32'}})
    const {guest_url} = (await sim.api('PUT', '/v1/checks/external/half-32', {body})).body
    const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'de-DE'})
    cleanup.push(() => page.close())
    await page.goto(guest_url)
    await page.getByText('1,5 × 10,00 € · 0 of 1,5 claimed').waitFor()
    const dashboard = await browser.newPage({viewport: {width: 1280, height: 900}, locale: 'de-DE'})
    cleanup.push(() => dashboard.close())
    await dashboard.goto(`${sim.url}/#key=${WRITE_KEY}`)
    await dashboard.locator('#checks tr', {hasText: 'half-32'}).getByText('0 / 1,5').waitFor()
  })

  it('the dashboard says when it shows the newest 100 checks of more', async () => {
    const scratch = (await sim.api('POST', '/v1/sim/accounts')).body
    const key = scratch.api_keys[0].key
    const body = checkWith([['tea', 1, 300]], {location_id: scratch.locations[0].id})
    for (let i = 0; i < 101; i++)
      expect((await sim.api('PUT', `/v1/checks/external/many-${i}`, {key, body})).status).toBe(201)
    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    cleanup.push(() => page.close())
    await page.goto(`${sim.url}/#key=${key}`)
    await page.getByText('The newest 100 checks: tablepay checks list pages through the rest.').waitFor()
    // its header, and the newest 100
    expect(await page.locator('#checks tr').count()).toBe(101)
  })

  it("the dashboard shows each check's amounts in its location's currency", async () => {
    const body = checkWith([['pie', 1, 1650]], {table: {number: '31'}, location_id: 'loc_other_a'})
    expect((await sim.api('PUT', '/v1/checks/external/usd-31', {body, key: OTHER_KEY})).status).toBe(201)
    // the browser's language is English: US dollars are written $18.15 (16.50 and its tax)
    expect(await dashboardAmounts(sim.url, OTHER_KEY, 'usd-31')).toEqual(['$18.15', '$18.15', '0 / 1'])
  })

  it("the dashboard says when a failed delivery's retry is on the scheduler clock, as far after the attempt was due", async () => {
    const scratch = (await sim.api('POST', '/v1/sim/accounts')).body
    const key = scratch.api_keys[0].key as string
    const receiver = await startReceiver(() => 503)
    cleanup.push(() => receiver.close())
    await sim.api('POST', '/v1/webhook-endpoints', {key, body: {url: receiver.url, event_types: ['check.created']}})
    const body = checkWith([['soup', 1, 800]], {location_id: scratch.locations[0].id})
    expect((await sim.api('PUT', '/v1/checks/external/retried', {key, body})).status).toBe(201)
    await receiver.waitFor(1)
    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    await page.goto(`${sim.url}/#key=${key}`)
    // the first retry of the default schedule is due a minute after the first attempt was
    await page.locator('#deliveries summary', {hasText: 'retry 1m after #1 was due, on the scheduler clock'}).waitFor()
    await page.close()
  })

  it("the dashboard finds a check's currency past the first page of locations", async () => {
    // the oldest of 101 locations, which a list (newest first) gives on its second page
    const locations = Array.from({length: 101}, (_, i) => ({
      id: `loc_${i}`,
      name: `Room ${i}`,
      timezone: 'Asia/Tokyo',
      currency: i === 0 ? 'JPY' : 'EUR',
    }))
    const key = 'tp_test_many_write'
    const many = await serverOfOneAccount('acct_many', key, locations)
    const body = checkWith([['ramen', 1, 1500]], {table: {number: '7'}, location_id: 'loc_0'})
    expect((await call(many.url, 'PUT', '/v1/checks/external/yen-7', {body, key})).status).toBe(201)
    // 1,500 and its tax of 150, in yen, which have no decimals
    expect(await dashboardAmounts(many.url, key, 'yen-7')).toEqual(['¥1,650', '¥1,650', '0 / 1'])
  })

  it('the dashboard shows the restored state when a snapshot is restored', async () => {
    const scratch = (await sim.api('POST', '/v1/sim/accounts')).body
    const key = scratch.api_keys[0].key
    const pushTable = (number: string) =>
      sim.api('PUT', `/v1/checks/external/r${number}`, {
        key,
        body: checkWith([['tea', 1, 300]], {table: {number}, location_id: scratch.locations[0].id}),
      })
    const qrOf = (number: string) => page.getByRole('button', {name: `Show the QR code of table ${number}`})
    await pushTable('51')
    expect((await sim.api('POST', '/v1/sim/snapshots', {key, body: {name: 'one-table'}})).status).toBe(201)
    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    await page.goto(`${sim.url}/#key=${key}`)
    await page.getByText('● Live').waitFor()
    await pushTable('52')
    await qrOf('52').waitFor()
    // the restore's only message on the stream is `reset`
    expect((await sim.api('POST', '/v1/sim/snapshots/one-table/restore', {key})).status).toBe(200)
    await qrOf('52').waitFor({state: 'detached'})
    await qrOf('51').waitFor()
    await page.close()
  })

  it('the dashboard reloads once its stream is back: what changed while it was away shows', async () => {
    const scratch = (await sim.api('POST', '/v1/sim/accounts')).body
    const key = scratch.api_keys[0].key
    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    await page.goto(`${sim.url}/#key=${key}`)
    await page.getByText('● Live').waitFor()
    // the stream drops, as on a network blip, and stays away while the POS pushes
    await page.route('**/v1/sim/stream', (route) => route.abort('connectionreset'))
    await page.evaluate(() => window.stop())
    await page.getByText('Reconnecting…').waitFor()
    const body = checkWith([['tea', 1, 300]], {table: {number: '61'}, location_id: scratch.locations[0].id})
    expect((await sim.api('PUT', '/v1/checks/external/blip', {key, body})).status).toBe(201)
    await page.unroute('**/v1/sim/stream')
    await page.getByText('● Live').waitFor()
    await page.getByRole('button', {name: 'Show the QR code of table 61'}).waitFor()
    await page.close()
  })

  it("the dashboard's live reloads keep open details and the focus, an action's error until the next action, and claims summed to the thousandth", async () => {
    const {scratch, key, own, endpoint} = await scratchWithEndpoint()
    const pushTable = (number: string) =>
      sim.api('PUT', `/v1/checks/external/live${number}`, {
        key,
        body: checkWith([['soup', 1, 800]], {table: {number}, location_id: scratch.locations[0].id}),
      })
    const tableShown = (number: string) =>
      page.getByRole('button', {name: `Show the QR code of table ${number}`}).waitFor()
    const check = (await pushTable('71')).body
    await own.waitFor(1)
    for (const quantity of [0.1, 0.2])
      await sim.api('POST', `/v1/sim/checks/${check.id}/claims`, {
        key,
        body: {items: [{external_id: 'soup', quantity}]},
      })
    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    await page.goto(`${sim.url}/#key=${key}`)
    await page.getByText('● Live').waitFor()
    await page.locator('#checks td[data-label="Claimed"]', {hasText: '0.3 / 1'}).waitFor()

    const delivery = (await sim.api('GET', '/v1/deliveries', {key})).body.data[0]
    await page.locator('#deliveries summary').first().click()
    const retry = page.getByRole('button', {name: `Retry delivery ${delivery.id}`})
    await retry.focus()
    await pushTable('72')
    await tableShown('72')
    expect(await page.locator('#deliveries details[open]').count()).toBe(1)
    expect(await focusedAttribute(page, 'aria-label')).toBe(`Retry delivery ${delivery.id}`)

    // its endpoint gone, the retry is refused: the reason stays through the next live reload
    expect((await sim.api('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, {key})).status).toBe(200)
    await retry.click()
    const notice = page.locator('#notice', {hasText: 'was deleted'})
    await notice.waitFor()
    await pushTable('73')
    await tableShown('73')
    expect(await notice.isVisible()).toBe(true)
    await page.close()
  })

  it('the dashboard keeps the newest lists when an older reload is answered after a newer one', async () => {
    const scratch = (await sim.api('POST', '/v1/sim/accounts')).body
    const key = scratch.api_keys[0].key
    const pushTable = (number: string) =>
      sim.api('PUT', `/v1/checks/external/o${number}`, {
        key,
        body: checkWith([['tea', 1, 300]], {table: {number}, location_id: scratch.locations[0].id}),
      })
    const qrOf = (number: string) => page.getByRole('button', {name: `Show the QR code of table ${number}`})
    await pushTable('41')
    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    await page.goto(`${sim.url}/#key=${key}`)
    await qrOf('41').waitFor()
    await page.getByText('● Live').waitFor()

    // the checks the next reload asks for are answered by the server at once, and reach the page only once a
    // later reload has shown what changed since
    const checks = await holdAnswers(page, (url) => url.pathname === '/v1/checks', {once: true})
    await pushTable('42')
    await checks.fetched
    await pushTable('43')
    await qrOf('43').waitFor()
    await page.locator('#board[aria-busy="true"]').waitFor()

    checks.release()
    await page.locator('#board:not([aria-busy])').waitFor()
    expect(await qrOf('43').isVisible()).toBe(true)
    await page.close()
  })

  it('the dashboard fits a phone: no sideways scroll, a QR code opens within the screen; actions are disabled under a read key', async () => {
    await sim.api('PUT', '/v1/checks/external/t40', {body: checkWith([['tea', 1, 300]], {table: {number: '40'}})})
    const page = await browser.newPage({viewport: PHONE, isMobile: true})
    await page.goto(`${sim.url}/#key=${READ_KEY}`)
    await page.getByText('● Live').waitFor()
    expect(await sideways(page)).toBe(0)
    await page.getByRole('button', {name: 'Show the QR code of table 40'}).click()
    const box = (await page.getByRole('dialog').getByRole('img', {name: 'QR code of table 40'}).boundingBox())!
    expect(box.x).toBeGreaterThanOrEqual(0)
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width)
    await page.keyboard.press('Escape')
    for (const button of await page.getByRole('button', {name: /^(Ping|Retry delivery) /}).all())
      expect(await button.isDisabled()).toBe(true)
    await page.locator('#board').getByText('Needs a write key').first().waitFor()
    await page.screenshot({path: join(OUTPUT, 'dashboard-phone.png'), fullPage: true})
    await page.close()
  })

  it('the dashboard, with a write key in its link, pings an endpoint and retries a delivery', async () => {
    const scratch = (await sim.api('POST', '/v1/sim/accounts')).body
    const key = scratch.api_keys[0].key
    const own = await startReceiver()
    try {
      const endpoint = await sim.api('POST', '/v1/webhook-endpoints', {
        key,
        body: {url: own.url, event_types: ['check.created']},
      })
      own.verifyWith(endpoint.body.secret)
      await sim.api('PUT', '/v1/checks/external/w1', {
        key,
        body: checkWith([['a', 1, 100]], {location_id: scratch.locations[0].id}),
      })
      await own.waitFor(1)

      const page = await browser.newPage({viewport: PHONE, isMobile: true})
      await page.goto(`${sim.url}/#key=${key}`)
      await page.getByRole('button', {name: `Ping ${own.url}`}).click()
      await page.getByText(/Ping answered 200 in \d+ ms/).waitFor()
      expect(JSON.parse(own.received[1]!.body).type).toBe('ping')

      const delivery = (await sim.api('GET', '/v1/deliveries', {key})).body.data[0]
      await page.locator('#deliveries summary').first().click()
      await page.getByRole('button', {name: `Retry delivery ${delivery.id}`}).click()
      await own.waitFor(3)
      expect(JSON.parse(own.received[2]!.body).type).toBe('check.created')
      expect(await page.locator('#board').getByText('Needs a write key').first().isVisible()).toBe(false)
      await page.close()
    } finally {
      await own.close()
    }
  })

  it('the dashboard refuses chaos typed as no number, and sets none, also once the table is rebuilt', async () => {
    const {key, own, endpoint, widen} = await scratchWithEndpoint()
    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    await page.goto(`${sim.url}/#key=${key}`)
    await page.locator('#endpoints details.chaos summary').first().click()
    const duplicate = page.getByLabel(`Duplicate for ${own.url}`)
    await duplicate.selectText()
    await page.keyboard.type('1e')
    await page.getByRole('button', {name: `Set chaos for ${own.url}`}).click()
    await page.locator('#notice', {hasText: `Duplicate for ${own.url} is not a number`}).waitFor()
    // the table rebuilt by a change it shows: the field cannot show that text again, and still sends nothing
    await widen('w5')
    await page.locator('#endpoints').getByText('check.created, check.updated').waitFor()
    // the click hides the notice it finds: what shows after is this click's
    await page.getByRole('button', {name: `Set chaos for ${own.url}`}).click()
    await page.locator('#notice', {hasText: `Duplicate for ${own.url} is not a number`}).waitFor()
    const chaos = await sim.api('GET', `/v1/sim/webhook-endpoints/${endpoint.id}/chaos`, {key})
    expect(chaos.body).toMatchObject({enabled: false, duplicate: 0})
    await page.close()
  })

  it('the dashboard resends a delivery, rotates a secret and sets chaos with a write key; under a read key they are disabled with the reason', async () => {
    const {scratch, key, own, endpoint, widen} = await scratchWithEndpoint()
    own.verifyWith(endpoint.secret)
    await sim.api('PUT', '/v1/checks/external/w2', {
      key,
      body: checkWith([['a', 1, 100]], {location_id: scratch.locations[0].id}),
    })
    await own.waitFor(1)
    const delivery = (await sim.api('GET', '/v1/deliveries', {key})).body.data[0]

    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    await page.goto(`${sim.url}/#key=${key}`)
    await page.locator('#deliveries summary').first().click()
    await page.getByRole('button', {name: `Resend ${delivery.event_id} to ${endpoint.id}`}).click()
    await own.waitFor(2)
    expect(own.received[1]!.body).toBe(own.received[0]!.body)

    await page.getByRole('button', {name: `Rotate the secret of ${own.url}`}).click()
    const shown = await page.getByText(/New secret \(shown once\): whsec_\w+/).textContent()
    own.verifyWith(shown!.match(/whsec_\w+/)![0])

    await page.locator('#endpoints details.chaos summary').first().click()
    await page.getByLabel(`Duplicate for ${own.url}`).fill('1')
    await page.getByLabel(`Seed for ${own.url}`).fill('7')
    // a change the table shows rebuilds it: the open form, what was typed and the secret shown once survive it
    await widen('w3')
    await page.locator('#endpoints').getByText('check.created, check.updated').waitFor()
    await page.getByText(/New secret \(shown once\): whsec_\w+/).waitFor()
    expect(await page.getByLabel(`Seed for ${own.url}`).inputValue()).toBe('7')
    // one it does not show (a rotated secret) leaves the field being typed in, and its focus, alone
    await page.getByLabel(`Seed for ${own.url}`).focus()
    await sim.api('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {key, body: {}})
    await sim.api('PUT', '/v1/checks/external/w4', {
      key,
      body: checkWith([['a', 1, 100]], {location_id: scratch.locations[0].id}),
    })
    await page.locator('#events').getByText('check.created').nth(2).waitFor()
    expect(await focusedAttribute(page, 'aria-label')).toBe(`Seed for ${own.url}`)
    await page.getByRole('button', {name: `Set chaos for ${own.url}`}).click()
    await page.getByText('Chaos on: duplicate 1, reorder 0s, seed 7').waitFor()
    const chaos = (await sim.api('GET', `/v1/sim/webhook-endpoints/${endpoint.id}/chaos`, {key})).body
    expect(chaos).toMatchObject({enabled: true, duplicate: 1, seed: 7})
    await page.close()
    // the page learned its key's scopes by asking, not by trying a write: nothing it sent was refused
    const refused = (await sim.api('GET', '/v1/sim/requests?status=4xx', {key})).body
    expect(refused.data).toEqual([])

    // the account's read key: the same controls, disabled, saying why
    await sim.api('POST', '/v1/webhook-endpoints', {body: {url: own.url, event_types: ['check.created']}})
    const reader = await browser.newPage({viewport: {width: 1280, height: 900}})
    await reader.goto(`${sim.url}/#key=${READ_KEY}`)
    await reader.locator('#endpoints td[data-label="URL"]').first().waitFor()
    await reader.getByText('● Live').waitFor()
    const controls = reader.getByRole('button', {name: /^(Resend|Rotate the secret of|Set chaos for|End chaos for) /})
    expect(await controls.count()).toBeGreaterThan(0)
    for (const button of await controls.all()) {
      expect(await button.isDisabled()).toBe(true)
      expect(await button.getAttribute('title')).toContain('Needs a write key')
    }
    await reader.close()
  })

  it('the dashboard and the table page fit 1280, 1366 and 390 px wide: no sideways scroll, rows of at most 56 px (a check on a phone: a card of 3 lines), nothing wrapped that should not be, an icon', async () => {
    // an account of its own: the screenshots show this test's checks, in every state a badge shows
    const scratch = (await sim.api('POST', '/v1/sim/accounts')).body
    const key = scratch.api_keys[0].key
    const own = await startReceiver()
    cleanup.push(() => own.close())
    // every event type, as `listen` subscribes
    await sim.api('POST', '/v1/webhook-endpoints', {key, body: {url: `${own.url}/tablepay`, event_types: EVENT_TYPES}})
    const pushTable = async (externalId: string, number: string, more: Parameters<typeof checkWith>[1] = {}) => {
      const body = checkWith(lines, {table: {number}, location_id: scratch.locations[0].id, ...more})
      const answer = await sim.api('PUT', `/v1/checks/external/${externalId}`, {key, body})
      expect(answer.status).toBeLessThan(300)
      return answer.body
    }
    const pay = (check: {id: string}, amount_cents: number) =>
      sim.api('POST', `/v1/sim/checks/${check.id}/payments`, {key, body: {amount_cents}})
    const open = await pushTable('fit-1', '1')
    const partly = await pushTable('pos-2026-11-25-main-room-table-2-check-88412', '2')
    expect((await pay(partly, 1000)).status).toBe(201)
    const paid = await pushTable('fit-3', '3', {version: 1})
    expect((await pay(paid, paid.amount_due_cents)).status).toBe(201)
    await pushTable('fit-3', '3', {version: 2, status: 'closed'})
    // a table's number is at most 32 characters, of no spaces
    const long = await pushTable('fit-4', 'TERRACE_LEFT_BOOTH_NUMBER_000012')

    for (const viewport of [{width: 1280, height: 800}, {width: 1366, height: 900}, PHONE]) {
      const phone = viewport === PHONE
      // a phone has no table rows: a check there is a card of three lines (its QR button's, a badge's and a
      // text's: 110 px here; a fourth would make it 130)
      const rows = phone ? {rows: '#checks tbody tr', maxRow: 120} : {rows: 'tbody tr', maxRow: 56}
      const page = await browser.newPage({viewport, isMobile: phone, locale: 'en-US'})
      await page.goto(`${sim.url}/#key=${key}`)
      await page.locator('#endpoints .badge', {hasText: 'enabled'}).waitFor()
      await page.locator('#checks .badge', {hasText: 'partially paid'}).waitFor()
      await page.getByText('● Live').waitFor()
      await page.screenshot({path: join(OUTPUT, `dashboard-${viewport.width}.png`), fullPage: true})
      expect(await sideways(page)).toBe(0)
      expect(await layoutFaults(page, rows)).toEqual({wrapped: [], alone: [], tall: [], overflowing: []})
      expect(await iconOf(page)).toEqual({status: 200, type: 'image/svg+xml'})

      await page.goto(open.guest_url)
      await page.getByText('Live:').waitFor()
      await page.screenshot({path: join(OUTPUT, `table-page-${viewport.width}.png`), fullPage: true})
      expect(await sideways(page)).toBe(0)
      expect(await layoutFaults(page, rows)).toEqual({wrapped: [], alone: [], tall: [], overflowing: []})
      expect(await iconOf(page)).toEqual({status: 200, type: 'image/svg+xml'})
      await page.goto(long.guest_url)
      await page.getByText('Live:').waitFor()
      expect(await sideways(page)).toBe(0)
      await page.goto(`${sim.url}/t/gt_${'0'.repeat(32)}`)
      expect(await iconOf(page)).toEqual({status: 200, type: 'image/svg+xml'})
      await page.close()
    }
    // what a browser asks for on a page that links no icon: an answer of the API shown as JSON
    const favicon = await fetch(`${sim.url}/favicon.ico`)
    expect([favicon.status, favicon.headers.get('content-type')]).toEqual([200, 'image/svg+xml'])
  })

  it('the table page fits the narrowest phones, 320 and 360 px wide: no sideways scroll, no choice cut off or wrapped, a long word in a notice too', async () => {
    // a check of its own, open and unpaid: the pay form and its tips show
    const body = checkWith(lines, {table: {number: '21'}})
    const {guest_url} = (await sim.api('PUT', '/v1/checks/external/narrow-21', {body})).body
    for (const width of [320, 360]) {
      const page = await browser.newPage({viewport: {width, height: 740}, isMobile: true, locale: 'en-US'})
      await page.goto(guest_url)
      await page.getByText('Live:').waitFor()
      await page.getByRole('radio', {name: '20%'}).waitFor()
      await page.screenshot({path: join(OUTPUT, `table-page-${width}.png`), fullPage: true})
      expect(await sideways(page)).toBe(0)
      expect(await layoutFaults(page, {rows: 'tr', maxRow: 56})).toEqual({
        wrapped: [],
        alone: [],
        tall: [],
        overflowing: [],
      })
      await page.close()
    }
    // text enlarged to 200 %, as a reader's browser setting makes it: an item's name and price keep the row's width,
    // its button going below them, rather than break into a few letters a line
    const enlarged = await browser.newPage({viewport: {width: 375, height: 740}, isMobile: true, locale: 'en-US'})
    await enlarged.goto(guest_url)
    await enlarged.getByText('Live:').waitFor()
    await enlarged.evaluate(`document.documentElement.style.fontSize = '200%'`)
    const shares = await enlarged
      .locator('.item-text')
      .evaluateAll((texts: PageElement[]) =>
        texts.map((text) => text.getBoundingClientRect().width / text.parentElement!.getBoundingClientRect().width),
      )
    expect(Math.min(...shares)).toBeGreaterThan(0.9)
    expect(await sideways(enlarged)).toBe(0)
    await enlarged.close()
    // a claim's notice names an item of one long word, which wraps as the item's own line does
    const word = 'Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz-Teller'
    const oneWord = checkWith([['long', 1, 900]], {table: {number: '22'}})
    oneWord.items[0]!.name = word
    const long = await sim.api('PUT', '/v1/checks/external/narrow-22', {body: oneWord})
    const page = await browser.newPage({viewport: PHONE, isMobile: true, locale: 'de-DE'})
    await page.goto(long.body.guest_url)
    await page.getByRole('button', {name: `Claim ${word}`}).click()
    await page.locator('#notice').getByText(word).waitFor()
    expect(await sideways(page)).toBe(0)
    await page.close()
  })

  it('a dashboard page load and its live reloads add nothing to the request log; the POS’s requests still appear', async () => {
    const scratch = (await sim.api('POST', '/v1/sim/accounts')).body
    const key = scratch.api_keys[0].key
    const own = await startReceiver()
    cleanup.push(() => own.close())
    const endpoint = await sim.api('POST', '/v1/webhook-endpoints', {
      key,
      body: {url: own.url, event_types: ['check.created']},
    })
    const pushTable = (number: string) =>
      sim.api('PUT', `/v1/checks/external/log${number}`, {
        key,
        body: checkWith([['tea', 1, 300]], {table: {number}, location_id: scratch.locations[0].id}),
      })
    const tableRow = (number: string) => page.locator('#checks td[data-label="Table"]', {hasText: number})
    const first = await pushTable('51')
    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    await page.goto(`${sim.url}/#key=${key}`)
    await tableRow('51').waitFor()
    await page.getByText('● Live').waitFor()

    // the push reloads every list of the page, and its Requests panel shows the push
    const second = await pushTable('52')
    await tableRow('52').waitFor()
    await page.locator(`#requests details[data-request="${second.headers.get('x-request-id')}"]`).waitFor()
    await page.close()
    const logged = (await sim.api('GET', '/v1/sim/requests', {key})).body.data
    expect(logged.map((entry: {method: string; path: string}) => `${entry.method} ${entry.path}`)).toEqual([
      'PUT /v1/checks/external/log52',
      'PUT /v1/checks/external/log51',
      'POST /v1/webhook-endpoints',
    ])
    expect([endpoint, first, second].map((answer) => answer.status)).toEqual([201, 201, 201])
  })

  it('an account without endpoints is told to run tablepay listen, not to POST; endpoints made and deleted show live', async () => {
    const key = (await sim.api('POST', '/v1/sim/accounts')).body.api_keys[0].key
    const page = await browser.newPage()
    await page.goto(`${sim.url}/#key=${key}`)
    await page.locator('#endpoints').getByText('tablepay listen --forward-to http://localhost:3000/webhooks').waitFor()
    expect(await page.locator('#endpoints').textContent()).not.toContain('POST')
    // one made, then deleted, through the API: no event tells of either, and the list follows live
    await page.getByText('● Live').waitFor()
    const hook = {url: 'https://example.invalid/new-hook', event_types: ['feedback.received']}
    const made = await sim.api('POST', '/v1/webhook-endpoints', {body: hook, key})
    expect(made.status).toBe(201)
    await page.locator('#endpoints').getByText(hook.url).waitFor()
    expect((await sim.api('DELETE', `/v1/webhook-endpoints/${made.body.id}`, {key})).status).toBe(200)
    await page.locator('#endpoints').getByText('tablepay listen --forward-to').waitFor()
    await page.close()
  })

  it('the dashboard shows the endpoints left, and no error, when one is deleted while it reads their chaos', async () => {
    const key = (await sim.api('POST', '/v1/sim/accounts')).body.api_keys[0].key
    const hook = async (name: string) =>
      (await sim.api('POST', '/v1/webhook-endpoints', {key, body: {url: `https://example.invalid/${name}`}})).body
    await hook('kept')
    const page = await browser.newPage()
    await page.goto(`${sim.url}/#key=${key}`)
    await page.getByText('● Live').waitFor()
    // every notice the page shows, however briefly: a later reload would hide one
    await page.evaluate(`{
      const notice = document.getElementById('notice')
      window.notices = []
      new MutationObserver(() => notice.hidden || window.notices.push(notice.textContent))
        .observe(notice, {attributes: true, childList: true})
    }`)
    let gone = ''
    let intercepted!: () => void
    const deleted = new Promise<void>((resolve) => (intercepted = resolve))
    // the reload its creation makes lists it, then reads its chaos: it is deleted just before that read
    await page.route(
      (url) => gone !== '' && url.pathname === `/v1/sim/webhook-endpoints/${gone}/chaos`,
      async (route) => {
        const id = gone
        gone = ''
        expect((await sim.api('DELETE', `/v1/webhook-endpoints/${id}`, {key})).status).toBe(200)
        await route.continue()
        intercepted()
      },
    )
    gone = (await hook('gone')).id
    await deleted
    await page.locator('#board:not([aria-busy])').waitFor()
    expect(await page.evaluate('window.notices')).toEqual([])
    expect(await page.locator('#endpoints').getByText('https://example.invalid/kept').isVisible()).toBe(true)
    await page.close()
  })

  it('the dashboard asks for a key when its link has none, and says so when the key is wrong', async () => {
    const page = await browser.newPage()
    await page.goto(`${sim.url}/`)
    await page.getByLabel('API key').fill('tp_test_wrong_key')
    await page.getByRole('button', {name: 'Open'}).click()
    await page.getByRole('alert').getByText('Unknown API key').waitFor()
    expect(new URL(page.url()).hash).toBe('#key=tp_test_wrong_key')
    // no panels of an account it cannot read under the form
    expect(await page.locator('#board').isHidden()).toBe(true)
    expect(await page.getByLabel('API key').isVisible()).toBe(true)
    await page.close()
  })

  it('the dashboard’s Requests panel shows a 422 push, filtered by status class, and opens it to its body and the error', async () => {
    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    await page.goto(`${sim.url}/#key=${READ_KEY}`)
    await page.getByText('● Live').waitFor()
    // sent once the page follows the stream: the panel shows it live
    const refused = await sim.api('PUT', '/v1/checks/external/t422', {body: {table: {number: 'panel-422'}, oops: true}})
    expect(refused.status).toBe(422)
    const id = refused.headers.get('x-request-id')!
    const entry = page.locator(`#requests details[data-request="${id}"]`)
    await entry.waitFor()
    await page.getByLabel('Status').selectOption('4xx')
    await expect
      .poll(async () => (await page.locator('#requests .badge').allTextContents()).every((t) => t.startsWith('4')))
      .toBe(true)
    await entry.locator('summary').click()
    await entry.getByText('"number": "panel-422"').waitFor()
    await entry
      .getByText(/validation_failed: Request body failed validation/)
      .first()
      .waitFor()
    expect(await entry.locator('summary').textContent()).toContain('PUT /v1/checks/external/t422')
    await page.screenshot({path: join(OUTPUT, 'dashboard-requests.png'), fullPage: true})
    await page.close()
  })

  it('the dashboard of a server whose request log is off says so in its Requests panel, and draws the rest', async () => {
    const off = await startTestServer({memory: true, serve: {requestLog: 0}})
    cleanup.push(() => off.close())
    await off.api('PUT', '/v1/checks/external/t-off', {
      body: checkWith([['tea', 1, 300]], {table: {number: 'log-off'}}),
    })
    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    await page.goto(`${off.url}/#key=${READ_KEY}`)
    await page.locator('#checks td[data-label="Table"]', {hasText: 'log-off'}).waitFor()
    await page.locator('#requests').getByText('The request log is off on this server (serve --request-log 0)').waitFor()
    expect(await page.locator('#notice').isHidden()).toBe(true)
    await page.close()
  })
})
