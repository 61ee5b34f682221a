import {readFile, rm} from 'node:fs/promises'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type CliServer, spawnServe, startCliServer, WRITE_KEY} from '../helpers/cli.js'
import {makeTempDir, writeSeed} from '../helpers/simulator.js'

describe('serve and the dashboard link', () => {
  // `serve --json --memory --seed fixtures/seed.json`, spawned once for the two tests that read it
  let server: CliServer
  beforeAll(async () => {
    server = await startCliServer()
  })
  afterAll(async () => {
    await server?.stop()
  })

  it("--json: the ready line carries dashboard_url with the first account's read key in the fragment", async () => {
    const base = server.url.replace(/\/v1$/, '')
    expect(server.ready.dashboard_url).toBe(`${base}/#key=tp_test_demo_read`)
    const page = await fetch(server.ready.dashboard_url)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
  })

  // the built serve is a bundle (scripts/serve-bundle.js): its pages' files are found from its own place, and the
  // QR code's package stays outside it, imported on demand
  it('the built server serves the table page, its files and its QR code', async () => {
    const pushed = await fetch(`${server.url}/checks/external/t12`, {
      method: 'PUT',
      headers: {authorization: `Bearer ${WRITE_KEY}`, 'content-type': 'application/json'},
      body: await readFile('fixtures/checks/open.json', 'utf8'),
    })
    const {guest_url: guestUrl} = (await pushed.json()) as {guest_url: string}
    const page = await fetch(guestUrl)
    expect(await page.text()).toContain('/assets/guest.js')
    const script = await fetch(new URL('/assets/guest.js', guestUrl))
    expect([script.status, script.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8'])
    const qr = await fetch(`${guestUrl}/qr.svg`)
    expect([qr.status, qr.headers.get('content-type')]).toEqual([200, 'image/svg+xml'])
    expect(await qr.text()).toMatch(/^<svg /)
  })

  it('the banner prints the dashboard link', async () => {
    const serve = spawnServe(['--memory', '--seed', 'fixtures/seed.json'])
    try {
      const stdout = await serve.waitForOutput('Ctrl+C')
      expect(stdout).toMatch(/^Dashboard: http:\/\/127\.0\.0\.1:\d+\/#key=tp_test_demo_read$/m)
    } finally {
      await serve.stop()
    }
  })

  it('never puts a write key in the link: without a read key it carries none', async () => {
    const dir = await makeTempDir()
    const seed = await writeSeed(dir, {
      accounts: [
        {
          id: 'acct_solo',
          name: 'Solo',
          locations: [{id: 'loc_solo', name: 'Room', timezone: 'UTC', currency: 'EUR'}],
          api_keys: [{key: 'tp_test_solo_write', scopes: ['read', 'write']}],
        },
      ],
    })
    const server = await startCliServer(['--memory', '--seed', seed])
    try {
      expect(server.ready.dashboard_url).toBe(`${server.url.replace(/\/v1$/, '')}/`)
    } finally {
      await server.stop()
      await rm(dir, {recursive: true, force: true})
    }
  })
})
