import {readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {cliFor, ROOT, runCommand} from '../helpers/cli.js'
import {makeTempDir} from '../helpers/simulator.js'

let server: ApiServer
beforeAll(async () => {
  server = await startApiServer()
})
afterAll(() => server.stop())

const cli = (args: string[]) => cliFor(server).cli(args)
const json = (args: string[]) => cliFor(server).json(args)
/** The "Try this:" line of a failed run. */
const hintOf = (stderr: string) => stderr.slice(stderr.indexOf('Try this:'))

describe('not_found names where to look for what was not found', () => {
  it.each([
    [['deliveries', 'get', 'dlv_nope'], 'tablepay deliveries list'],
    [['webhooks', 'delete', 'we_nope'], 'tablepay webhooks list'],
    [['events', 'get', 'evt_nope'], 'tablepay events list'],
    [['trigger', 'refund', '--payment', 'pay_nope'], 'tablepay trigger payment'],
    [['checks', 'get', 'no-such-pos-id'], 'tablepay checks list'],
    [['faults', 'clear', 'flt_nope'], 'tablepay faults list'],
    [['logs', 'get', 'req_nope'], 'tablepay logs list'],
  ])('%j points to %s', async (args, command) => {
    const {code, stderr} = await cli(args)
    expect(code).toBe(1)
    expect(stderr).toContain('Code: not_found')
    const hint = hintOf(stderr)
    expect(hint).toContain(command)
    for (const other of ['checks list', 'deliveries list', 'webhooks list'].filter((c) => !command.endsWith(c))) {
      expect(hint).not.toContain(`tablepay ${other}`)
    }
  })
})

describe('conflict_with_paid_items', () => {
  /** fixtures/checks/open.json, one version up, changed by `change`, in a file of its own. */
  const pushBody = async (name: string, change: (body: Record<string, any>) => object) => {
    const body = JSON.parse(await readFile(join(ROOT, 'fixtures/checks/open.json'), 'utf8'))
    const file = join(await makeTempDir('tablepay-hints-'), `${name}.json`)
    await writeFile(file, JSON.stringify(change({...body, version: (body.version ?? 1) + 1})))
    return file
  }

  it('a push that removes a claimed item, nothing paid: keep it, and no word of a refund', async () => {
    await json(['checks', 'push', 'h-claimed', '-f', 'fixtures/checks/open.json'])
    await json(['trigger', 'claim', '-c', 'h-claimed', '--item', 'line-1001'])
    const withoutClaimed = (items: {external_id: string}[]) => items.filter((i) => i.external_id !== 'line-1001')
    const file = await pushBody('claimed', (b) => ({...b, items: withoutClaimed(b.items)}))
    const {code, stderr} = await cli(['checks', 'push', 'h-claimed', '-f', file])
    expect(code).toBe(1)
    expect(stderr).toContain('Code: conflict_with_paid_items')
    expect(hintOf(stderr)).toContain('keep every claimed item')
    expect(stderr).not.toMatch(/refund/i)
    // the detail names the item once
    expect(stderr).toContain('  - items: item line-1001 is claimed by guests and cannot be removed\n')
  })

  it('voiding a check guests paid says to refund first', async () => {
    await json(['checks', 'push', 'h-paid', '-f', 'fixtures/checks/open.json'])
    await json(['trigger', 'payment', '-c', 'h-paid', '--amount', '1000'])
    const file = await pushBody('paid', (b) => ({...b, status: 'voided'}))
    const {code, stderr} = await cli(['checks', 'push', 'h-paid', '-f', file])
    expect(code).toBe(1)
    expect(stderr).toContain('Code: conflict_with_paid_items')
    expect(hintOf(stderr)).toContain('refund with `tablepay trigger refund` first')
  })
})

describe('validation_failed', () => {
  it('prints each problem once', async () => {
    const {code, stderr} = await runCommand(['checks', 'push', 'h-invalid'], {
      env: server.env,
      input: '{"status": "open"}',
    })
    expect(code).toBe(1)
    expect(stderr).toContain('Code: validation_failed')
    for (const path of ['table', 'items', 'totals']) expect(stderr.split(`${path}: Required: expected`)).toHaveLength(2)
  })

  it('a claim of an item the check does not have points to the check and its items', async () => {
    const check = await json(['checks', 'push', 'h-claim', '-f', 'fixtures/checks/open.json'])
    const {code, stderr} = await cli(['trigger', 'claim', '--check', 'h-claim', '--item', 'line-nope'])
    expect(code).toBe(1)
    expect(stderr).toContain(`no item "line-nope" on check ${check.id}`)
    expect(hintOf(stderr)).toContain(
      `See the check's items and their external ids with \`tablepay checks get ${check.id}\`.`,
    )
  })
})

describe("a refusal about a check's contents names that check in the hint", () => {
  it('item_unavailable: what is left, on the check claimed', async () => {
    const check = await json(['checks', 'push', 'h-gone', '-f', 'fixtures/checks/open.json'])
    await json(['trigger', 'claim', '-c', 'h-gone', '--item', 'line-1001'])
    const {code, stderr} = await cli(['trigger', 'claim', '-c', 'h-gone', '--item', 'line-1001'])
    expect(code).toBe(1)
    expect(stderr).toContain('Code: item_unavailable')
    expect(hintOf(stderr)).toContain(
      `See what is left with \`tablepay checks get ${check.id}\` and claim at most that.`,
    )
  })

  it('amount_exceeds_balance: what is due on the check paid; a refund past what is left gets no check', async () => {
    const check = await json(['checks', 'push', 'h-due', '-f', 'fixtures/checks/open.json'])
    const over = await cli(['trigger', 'payment', '-c', 'h-due', '--amount', String(check.totals.total_cents + 1)])
    expect(over.code).toBe(1)
    expect(hintOf(over.stderr)).toContain(
      `See what is due with \`tablepay checks get ${check.id}\` and pay at most that.`,
    )
    const payment = await json(['trigger', 'payment', '-c', 'h-due', '--amount', '100'])
    const refund = await cli(['trigger', 'refund', '--payment', payment.id, '--amount', '101'])
    expect(refund.code).toBe(1)
    expect(refund.stderr).toContain('Code: amount_exceeds_balance')
    expect(refund.stderr).not.toContain('checks get')
  })

  it('version_conflict: the stored version, by the POS id pushed', async () => {
    await json(['checks', 'push', 'h-version', '-f', 'fixtures/checks/open.json'])
    const {code, stderr} = await runCommand(['checks', 'push', 'h-version'], {
      env: server.env,
      input: (await readFile(join(ROOT, 'fixtures/checks/open.json'), 'utf8')).replace('"open"', '"closed"'),
    })
    expect(code).toBe(1)
    expect(stderr).toContain('Code: version_conflict')
    expect(hintOf(stderr)).toContain('See the stored version with `tablepay checks get h-version`.')
  })

  it('version_conflict of a POS id that reads as a flag: the hint quotes it after --, and runs as written', async () => {
    expect((await cli(['checks', 'push', '-f', 'fixtures/checks/open.json', '--', '-v2'])).code).toBe(0)
    const {stderr} = await runCommand(['checks', 'push', '--', '-v2'], {
      env: server.env,
      input: (await readFile(join(ROOT, 'fixtures/checks/open.json'), 'utf8')).replace('"open"', '"closed"'),
    })
    expect(hintOf(stderr)).toContain("`tablepay checks get -- '-v2'`")
    const got = await cli(['checks', 'get', '--', '-v2'])
    expect([got.code, got.stdout]).toEqual([0, expect.stringContaining('-v2')])
  })
})

describe("a refusal of a field a flag fills names the flag, as typed; --json keeps the API's body", () => {
  it('trigger payment past what is due: --amount, and the tip goes in --tip', async () => {
    const check = await json(['checks', 'push', 'h-field', '-f', 'fixtures/checks/open.json'])
    const over = String(check.totals.total_cents + 1)
    const {code, stderr} = await cli(['trigger', 'payment', '-c', 'h-field', '--amount', over])
    expect(code).toBe(1)
    expect(stderr).toContain(`--amount ${over} is more than the ${check.totals.total_cents} due`)
    expect(stderr).toContain('(a tip goes in --tip)')
    expect(stderr).toContain(`- --amount: must be at most ${check.totals.total_cents}`)
    expect(stderr).not.toContain('_cents')
    const body = await cli(['trigger', 'payment', '-c', 'h-field', '--amount', over, '--json'])
    expect(JSON.parse(body.stdout).error.message).toMatch(/^amount_cents \d+ is more than/)
  })

  it('trigger payment --claim of no claim: --claim, and the command that lists claims instead of a route', async () => {
    await json(['checks', 'push', 'h-cid', '-f', 'fixtures/checks/open.json'])
    const {code, stderr} = await cli(['trigger', 'payment', '-c', 'h-cid', '--amount', '100', '--claim', 'clm_nope'])
    expect(code).toBe(1)
    expect(stderr).toContain('- --claim: no claim clm_nope on check')
    expect(stderr).toContain('`tablepay events list -e claim.created` lists the claims')
    expect(stderr).not.toContain('GET /v1')
  })

  it('events resend to no endpoint: --endpoint', async () => {
    const check = await json(['checks', 'push', 'h-resend', '-f', 'fixtures/checks/open.json'])
    const [event] = (await json(['events', 'list', '-n', '1'])).data
    expect(event.data.id).toBe(check.id)
    const {code, stderr} = await cli(['events', 'resend', event.id, '--endpoint', 'we_nope'])
    expect(code).toBe(1)
    expect(stderr).toContain('- --endpoint: no webhook endpoint we_nope in this account')
  })

  it('trigger claim of more than is left: --item', async () => {
    await json(['checks', 'push', 'h-item', '-f', 'fixtures/checks/open.json'])
    const {code, stderr} = await cli(['trigger', 'claim', '-c', 'h-item', '--item', 'line-1002:5'])
    expect(code).toBe(1)
    expect(stderr).toContain('- --item: only 2 of line-1002 left to claim')
  })
})

describe('a refusal names the commands to run, never an HTTP route', () => {
  it.each([
    [['checks', 'list', '--starting-after', 'chk_nope'], '- --starting-after: no chk_nope in this list'],
    [
      ['checks', 'push', 'h-loc', '-f', 'fixtures/checks/open.json', '-l', 'loc_nope'],
      'no location loc_nope in this account\n',
    ],
    [['faults', 'clear', 'flt_nope'], 'No fault flt_nope in this account; a used-up fault is gone.\n'],
    [['snapshots', 'restore', 'nope'], 'No snapshot nope in this account.\n'],
  ])('%j names the command or flag, no route or body field', async (args, said) => {
    const {stderr} = await cli(args)
    expect(stderr.replaceAll(/\n ›  {3}(?! )/g, '')).toContain(said)
    expect(stderr).not.toMatch(/(GET|POST|DELETE) \/v1|starting_after/)
  })

  it('a request a fault struck says which command removes the fault', async () => {
    await json(['faults', 'add', '--path', '/v1/locations', '--status', '503'])
    const {code, stderr} = await cli(['locations', 'list'])
    expect(code).toBe(1)
    expect(stderr).toContain('`tablepay faults clear` removes it')
    expect(stderr).not.toContain('/v1/sim/faults')
  })
})

describe('event_type_not_subscribed', () => {
  it("names the endpoint and the type, and says -e replaces the endpoint's types", async () => {
    const endpoint = await json([
      'webhooks',
      'create',
      '--forward-to',
      'http://127.0.0.1:9/hooks',
      '-e',
      'check.closed',
    ])
    await json(['checks', 'push', 'h-types', '-f', 'fixtures/checks/open.json'])
    const [created] = (await json(['events', 'list', '-e', 'check.created', '--limit', '1'])).data
    const {code, stderr} = await cli(['events', 'resend', created.id, '--endpoint', endpoint.id])
    expect(code).toBe(1)
    expect(stderr).toContain('Code: event_type_not_subscribed')
    expect(hintOf(stderr)).toContain(
      `\`tablepay webhooks update ${endpoint.id} -e\` with them and check.created adds it (-e replaces them)`,
    )
    await json(['webhooks', 'delete', endpoint.id])
  })
})

describe('rate_limited', () => {
  it("gives the answer's Retry-After as the number of seconds to wait", async () => {
    await json(['faults', 'add', '--path', '/v1/locations', '--status', '429', '--retry-after', '7'])
    const {code, stderr} = await cli(['locations', 'list'])
    expect(code).toBe(1)
    expect(stderr).toContain('Code: rate_limited')
    expect(hintOf(stderr)).toContain('Wait 7 s, then send the request again.')
  })
})

describe('a hint adds to the server message, in the CLI terms, rather than repeating it', () => {
  it('an unknown key: the message says where keys come from, the hint how to pass one', async () => {
    const {code, stderr} = await cli(['locations', 'list', '--api-key', 'tp_test_nope'])
    expect(code).toBe(1)
    expect(stderr.split('tablepay serve').length - 1).toBe(1)
    expect(hintOf(stderr)).toContain('--api-key or TABLEPAY_API_KEY')
  })
})
