import qrcode from 'qrcode'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../../helpers/api-server.js'
import {runCommand} from '../../helpers/cli.js'

let server: ApiServer
let guestUrl: string
beforeAll(async () => {
  server = await startApiServer()
  const {stdout} = await runCommand(['checks', 'push', 't12', '-f', 'fixtures/checks/open.json', '--json'], {
    env: server.env,
  })
  guestUrl = JSON.parse(stdout).guest_url
})
afterAll(() => server.stop())

describe('--qr', () => {
  it('checks push --qr prints the QR code of guest_url and the link under it', async () => {
    const {code, stdout} = await runCommand(['checks', 'push', 't12', '-f', 'fixtures/checks/open.json', '--qr'], {
      env: server.env,
    })
    expect(code).toBe(0)
    // no colours in a pipe: plain block characters
    expect(stdout).toContain(
      `${await qrcode.toString(guestUrl, {type: 'utf8'})}\nScan to open the table page: ${guestUrl}`,
    )
  })

  it('checks get --qr prints the same code after the check', async () => {
    const {code, stdout} = await runCommand(['checks', 'get', 't12', '--qr'], {env: server.env})
    expect(code).toBe(0)
    const qr = await qrcode.toString(guestUrl, {type: 'utf8'})
    expect(stdout.indexOf(qr)).toBeGreaterThan(stdout.indexOf('Total'))
    expect(stdout).not.toContain('\u001b[')
  })

  it('with --json prints only the check', async () => {
    const {code, stdout} = await runCommand(['checks', 'get', 't12', '--qr', '--json'], {env: server.env})
    expect(code).toBe(0)
    expect(JSON.parse(stdout).guest_url).toBe(guestUrl)
  })

  it('is not printed without the flag', async () => {
    const {stdout} = await runCommand(['checks', 'get', 't12'], {env: server.env})
    expect(stdout).not.toContain('Scan to open')
    expect(stdout).not.toContain('█')
  })
})
