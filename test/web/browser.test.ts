import {mkdir} from 'node:fs/promises'
import {join} from 'node:path'
import {type Browser, chromium} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {ROOT} from '../helpers/cli.js'
import {startReceiver} from '../helpers/receiver.js'
import {READ_KEY, startTestServer, type TestServer} from '../helpers/simulator.js'

// Debian's Chromium (.ci/run installs it), never a browser playwright downloads
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const OUTPUT = join(ROOT, 'test-output')
const GUEST_EVENTS = ['check.fully_paid', 'claim.created', 'feedback.received', 'payment.succeeded']
const HOSTILE = '<img src=x onerror="window.injected=1">'

let sim: TestServer
let receiver: Awaited<ReturnType<typeof startReceiver>>
let browser: Browser
beforeAll(async () => {
  ;[sim, receiver, browser] = await Promise.all([startTestServer({memory: true}), startReceiver(), chromium.launch({executablePath: CHROMIUM})])
  await mkdir(OUTPUT, {recursive: true})
})
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

describe('in a real browser', () => {
  it('a guest claims, pays and leaves feedback on the table page, which follows the POS live', async () => {
    const endpoint = await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types: GUEST_EVENTS}})
    expect(endpoint.status).toBe(201)
    receiver.verifyWith(endpoint.body.secret)
    const created = await push(checkWith(lines, {version: 1}))
    expect(created.status).toBe(201)

    const page = await browser.newPage({viewport: {width: 390, height: 844}, isMobile: true})
    await page.goto(created.body.guest_url)
    await page.getByRole('heading', {name: 'Table 12'}).waitFor()
    // the stream is open: from here on, POS pushes reach the page
    await page.getByText('Live:').waitFor()

    // POS strings are shown as text, never run as HTML
    await page.getByText(HOSTILE, {exact: true}).waitFor()
    expect(await page.evaluate(() => (window as {injected?: number}).injected)).toBeUndefined()

    await page.getByRole('button', {name: 'Claim Item steak'}).click()
    await page.getByText('1 × 24.50 · 1 of 1 claimed').waitFor()

    // the POS adds dessert: it appears without a reload, and the amount to pay follows
    const withDessert = checkWith([...lines, ['dessert', 1, 650]], {version: 2})
    expect((await push(withDessert)).status).toBe(200)
    await page.getByText('Item dessert').waitFor()
    expect(await page.getByLabel('Amount').inputValue()).toBe((withDessert.totals.total_cents / 100).toFixed(2))

    await page.getByLabel('10%').check()
    await page.getByRole('button', {name: /^Pay /}).click()
    await page.getByText('Paid in full', {exact: true}).waitFor()
    expect(await page.locator('#total-due').textContent()).toBe('0.00')

    await page.getByLabel('5', {exact: true}).check()
    await page.getByLabel('Comment (optional)').fill('Great steak')
    await page.getByRole('button', {name: 'Send feedback'}).click()
    await page.getByText('Thank you for your feedback!').waitFor()

    // the POS closes the paid check: the page shows it, still paid, without a reload
    expect((await push(checkWith([...lines, ['dessert', 1, 650]], {version: 3, status: 'closed'}))).status).toBe(200)
    await page.locator('#check-status', {hasText: 'Closed'}).waitFor()
    expect(await page.locator('#payment-status').textContent()).toBe('Paid in full')
    await page.screenshot({path: join(OUTPUT, 'table-page.png'), fullPage: true})

    await receiver.waitFor(GUEST_EVENTS.length)
    expect(receiver.received.map((r) => JSON.parse(r.body).type).sort()).toEqual(GUEST_EVENTS)
    const payment = receiver.received.map((r) => JSON.parse(r.body)).find((e) => e.type === 'payment.succeeded')
    expect(payment.data).toMatchObject({amount_cents: withDessert.totals.total_cents, tip_cents: Math.round(withDessert.totals.total_cents / 10)})
    await page.close()
  })

  it('the dashboard, opened with the read key in its link, lists the checks with their QR code and updates live', async () => {
    const page = await browser.newPage({viewport: {width: 1280, height: 900}})
    await page.goto(`${sim.url}/#key=${READ_KEY}`)
    await page.getByRole('cell', {name: receiver.url}).waitFor()
    await page.locator('#deliveries').getByText('feedback.received').waitFor()
    await page.locator('#events').getByText('check.fully_paid').waitFor()
    const qr = page.getByRole('img', {name: 'QR code of table 12'})
    await qr.waitFor()
    // decode() waits for the image to load, and fails for a broken one
    expect(await qr.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth > 0, () => false))).toBe(true)
    await page.getByText('● Live').waitFor()

    await sim.api('PUT', '/v1/checks/external/t14', {body: checkWith([['tea', 1, 300]], {table: {number: '14'}})})
    await page.getByRole('img', {name: 'QR code of table 14'}).waitFor()
    await page.screenshot({path: join(OUTPUT, 'dashboard.png'), fullPage: true})
    await page.close()
  })

  it('the dashboard asks for a key when its link has none, and says so when the key is wrong', async () => {
    const page = await browser.newPage()
    await page.goto(`${sim.url}/`)
    await page.getByLabel('API key').fill('tp_test_wrong_key')
    await page.getByRole('button', {name: 'Open'}).click()
    await page.getByRole('alert').getByText('Unknown API key').waitFor()
    expect(new URL(page.url()).hash).toBe('#key=tp_test_wrong_key')
    await page.close()
  })
})
