import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {runCommand} from '../helpers/cli.js'

let server: ApiServer
beforeAll(async () => {
  server = await startApiServer()
})
afterAll(() => server.stop())

/** Pushes fixtures/checks/open.json as POS check `externalId`: each test acts on a check of its own. */
const openCheck = async (externalId: string): Promise<{id: string; totals: {total_cents: number}}> => {
  const {stdout} = await runCommand(['checks', 'push', externalId, '-f', 'fixtures/checks/open.json', '--json'], {
    env: server.env,
  })
  return JSON.parse(stdout)
}

const trigger = (args: string[]) => runCommand(['trigger', ...args], {env: server.env})
const api = async (path: string) => {
  const res = await fetch(`${server.url}${path}`, {headers: {authorization: `Bearer ${server.env.TABLEPAY_API_KEY}`}})
  return res.json()
}

describe('trigger', () => {
  it('claim prints the claim readably, by POS id, and --json is the claim resource', async () => {
    const check = await openCheck('t12')
    const printed = await trigger(['claim', '--check', 't12', '--item', 'line-1001'])
    expect(printed.code).toBe(0)
    expect(printed.stdout).toMatch(
      new RegExp(`^Claim clm_\\w+  check ${check.id}\\n\\nEXTERNAL ID\\s+QTY\\nline-1001\\s+1\\n$`),
    )
    const json = await trigger(['claim', '-c', check.id, '--item', 'line-1002:2', '--json'])
    expect(json.code).toBe(0)
    const claim = JSON.parse(json.stdout)
    expect(claim).toMatchObject({object: 'claim', check_id: check.id, items: [{external_id: 'line-1002', quantity: 2}]})
    expect(await api(`/claims/${claim.id}`)).toEqual(claim)
  })

  it.each(['abc', '0x2', '1e1', '1.5', '0'])(
    'an --item whose quantity is %s exits 2, naming the flag once and showing the form',
    async (quantity) => {
      const {code, stderr} = await trigger(['claim', '-c', 't15', '--item', `line-1001:${quantity}`])
      expect(code).toBe(2)
      expect(stderr.replaceAll(/\s*\n\s*›?\s*/g, ' ')).toContain(
        `--item: line-1001:${quantity} is not EXTERNAL_ID or EXTERNAL_ID:QUANTITY with a whole quantity above 0, such as steak:2.`,
      )
      expect(stderr.match(/--item/g)).toHaveLength(1)
    },
  )

  it('claiming what is gone exits 1 with item_unavailable, naming the check', async () => {
    await openCheck('t15')
    expect((await trigger(['claim', '-c', 't15', '--item', 'line-1001'])).code).toBe(0)
    const {code, stderr} = await trigger(['claim', '-c', 't15', '--item', 'line-1001'])
    expect(code).toBe(1)
    expect(stderr).toMatch(
      /Not enough left to claim on check chk_\w+:\s*›?\s*- --item: only 0 of line-1001 left to claim\n/,
    )
    expect(stderr.match(/only 0 of line-1001/g)).toHaveLength(1)
  })

  it('payment prints the payment; refund and feedback print theirs; --json returns each resource', async () => {
    const check = await openCheck('t16')
    const printed = await trigger(['payment', '-c', 't16', '--amount', '1200', '--tip', '150'])
    expect(printed.code).toBe(0)
    expect(printed.stdout).toMatch(
      new RegExp(
        `^Payment pay_\\w+  succeeded  check ${check.id}\\nAmount    12\\.00\\nTip        1\\.50\\nRefunded   0\\.00\\n$`,
      ),
    )
    const rest = JSON.parse((await trigger(['payment', '-c', 't16', '--json'])).stdout)
    expect(rest).toMatchObject({object: 'payment', amount_cents: check.totals.total_cents - 1200, tip_cents: 0})
    expect(await api(`/checks/${check.id}`)).toMatchObject({payment_status: 'paid', amount_due_cents: 0})

    const refund = await trigger(['refund', '--payment', rest.id, '--amount', '300'])
    expect(refund.code).toBe(0)
    expect(refund.stdout).toMatch(
      /^Payment pay_\w+ {2}partially refunded {2}check chk_\w+\nAmount\s+66\.65\nTip\s+0\.00\nRefunded\s+3\.00\nRefund\s+3\.00 at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n$/,
    )
    const refunded = JSON.parse((await trigger(['refund', '--payment', rest.id, '--json'])).stdout)
    expect(refunded).toMatchObject({id: rest.id, status: 'refunded', amount_refunded_cents: rest.amount_cents})
    expect(await api(`/payments/${rest.id}`)).toEqual(refunded)

    const feedback = await trigger(['feedback', '-c', 't16', '--rating', '4', '--comment', 'Lovely burrata'])
    expect(feedback.code).toBe(0)
    expect(feedback.stdout).toMatch(
      /^Feedback fb_\w+ {2}check chk_\w+\nRating {3}4\/5 ★★★★☆\nComment {2}Lovely burrata\n$/,
    )
    const json = JSON.parse((await trigger(['feedback', '-c', check.id, '-r', '5', '--json'])).stdout)
    expect(json).toMatchObject({object: 'feedback', check_id: check.id, rating: 5, comment: null})
  })

  it('a declined payment exits 1 with payment_declined; --json prints the error body', async () => {
    await openCheck('t13')
    const {code, stdout} = await trigger(['payment', '-c', 't13', '--amount', '100', '--decline', '--json'])
    expect(code).toBe(1)
    expect(JSON.parse(stdout).error).toMatchObject({code: 'payment_declined'})
    expect(await api('/checks/external/t13')).toMatchObject({amount_paid_cents: 0})
  })

  it('with --idempotency-key, running the same command twice acts once and prints the same answer', async () => {
    await openCheck('t14')
    const args = ['payment', '-c', 't14', '--amount', '500', '--idempotency-key', 'cli-t14-1', '--json']
    const first = await trigger(args)
    const again = await trigger(args)
    expect(first.code).toBe(0)
    expect(again.stdout).toBe(first.stdout)
    expect(await api('/checks/external/t14')).toMatchObject({amount_paid_cents: 500})
  })

  it('payment --idempotency-key without --amount is refused before anything is sent', async () => {
    await openCheck('t17')
    const {code, stderr} = await trigger(['payment', '-c', 't17', '--idempotency-key', 'cli-t17-1'])
    expect(code).toBe(2)
    expect(stderr).toContain('--idempotency-key needs --amount')
    expect(await api('/checks/external/t17')).toMatchObject({amount_paid_cents: 0})
  })

  it('an amount past what the API takes is a wrong command line, never rounded and sent', async () => {
    await openCheck('t18')
    for (const args of [
      ['payment', '-c', 't18', '--amount', '99999999999999999'],
      ['payment', '-c', 't18', '--amount', '100', '--tip', '99999999999999999999'],
      ['refund', '--payment', 'pay_none', '--amount', '1000000000001'],
    ]) {
      const {code, stderr} = await trigger(args)
      expect([code, stderr], args.join(' ')).toEqual([
        2,
        expect.stringContaining('less than or equal to 1000000000000'),
      ])
    }
    expect(await api('/checks/external/t18')).toMatchObject({amount_paid_cents: 0})
  })

  it('every trigger command has --help with examples', async () => {
    for (const command of ['claim', 'payment', 'refund', 'feedback']) {
      const {code, stdout} = await trigger([command, '--help'])
      expect(code).toBe(0)
      expect(stdout).toContain('EXAMPLES')
      expect(stdout).toContain(`tablepay trigger ${command}`)
    }
  })
})
