import {describe, expect, it} from 'vitest'
import {BODY_CAP, type RequestTrace} from '../../src/domain/request-log.js'
import {RequestLog} from '../../src/service/request-log.js'
import {requestTrace} from '../helpers/request-log.js'
import {liveHeap} from '../helpers/heap.js'

const KiB = 1024

const ACCOUNTS = ['acct_a', 'acct_b', 'acct_c']

/** The ids an account's log shows, newest first. */
const idsOf = (log: RequestLog, accountId: string) => log.list(accountId, {}, {limit: 100})!.data.map((e) => e.id)

/** `rounds` requests per account, one account after the other, each with a body of `bodyChars`. */
function flood(log: RequestLog, rounds: number, bodyChars: number): string[] {
  const order: string[] = []
  for (let i = 0; i < rounds; i++) {
    for (const accountId of ACCOUNTS) {
      const id = `req_${accountId}_${i}`
      log.record(accountId, requestTrace({id, method: 'PUT', status: 422, request_body: 'x'.repeat(bodyChars)}))
      order.push(id)
    }
  }
  return order
}

describe('the request log bound in bytes, every account together', () => {
  it('drops the oldest entries of all accounts first, and keeps the newest of each within the bound', () => {
    const log = new RequestLog(1000, {maxBytes: 1024 * KiB})
    const order = flood(log, 60, 60 * KiB)
    expect(log.bytes).toBeLessThanOrEqual(1024 * KiB)
    const kept = new Set(ACCOUNTS.flatMap((accountId) => idsOf(log, accountId)))
    // far fewer than the 1,000 per account, and exactly the newest requests of all: no account keeps an older one
    expect(kept.size).toBeGreaterThan(10)
    expect(kept.size).toBeLessThan(18)
    expect([...kept].sort()).toEqual(order.slice(-kept.size).sort())
    for (const accountId of ACCOUNTS) expect(idsOf(log, accountId)[0]).toBe(`req_${accountId}_59`)
  })

  it('gives the entries of an account that went quiet to the newer requests of the others', () => {
    const log = new RequestLog(1000, {maxBytes: 1024 * KiB})
    log.record('acct_quiet', requestTrace({id: 'req_quiet_1', request_body: 'q'.repeat(BODY_CAP)}))
    log.record('acct_quiet', requestTrace({id: 'req_quiet_2'}))
    expect(idsOf(log, 'acct_quiet')).toEqual(['req_quiet_2', 'req_quiet_1'])
    flood(log, 10, 60 * KiB)
    expect(idsOf(log, 'acct_quiet')).toEqual([])
    // a cursor on an entry dropped for bytes ends the walk, as one dropped for the count does
    expect(log.list('acct_quiet', {}, {limit: 10, starting_after: 'req_quiet_2'})).toEqual({
      object: 'list',
      data: [],
      has_more: false,
      next_cursor: null,
    })
  })

  it('counts an entry once rendered: parsed JSON that weighs more than its text drops older entries', () => {
    const log = new RequestLog(1000, {maxBytes: 4096 * KiB})
    // 21,000 empty arrays: 63 KiB of text, some 800 KiB once parsed
    const heavy = JSON.stringify(Array.from({length: 21_000}, () => []))
    expect(heavy.length).toBeLessThanOrEqual(BODY_CAP)
    for (let i = 0; i < 20; i++) log.record('acct_a', requestTrace({id: `req_${i}`, request_body: heavy}))
    // all 20 kept as text, well within the bound
    const unread = log.bytes
    expect(unread).toBeGreaterThan(20 * heavy.length)
    expect(unread).toBeLessThan(2048 * KiB)
    // reading renders (and keeps) each entry, newest first: past the bound the oldest go before they are read
    const read = log.list('acct_a', {}, {limit: 20})!
    expect(read.data[0]!.request_body).toHaveLength(21_000)
    expect(read.data.length).toBeLessThan(20)
    expect(read.data.map((e) => e.id)).toEqual(Array.from({length: read.data.length}, (_, i) => `req_${19 - i}`))
    expect(log.bytes).toBeGreaterThan(unread)
    expect(log.bytes).toBeLessThanOrEqual(4096 * KiB)
    // what is left is the newest of what was read (the last one read may have gone for the bytes it added)
    const left = idsOf(log, 'acct_a')
    expect(left.length).toBeGreaterThan(0)
    expect(left).toEqual(read.data.slice(0, left.length).map((e) => e.id))
  })

  it('frees the bytes of what the count per account, a reset and a deleted account drop', () => {
    const log = new RequestLog(2)
    const trace = (id: string): RequestTrace => requestTrace({id, request_body: 'x'.repeat(10 * KiB)})
    log.record('acct_a', trace('req_1'))
    log.record('acct_a', trace('req_2'))
    const two = log.bytes
    log.record('acct_a', trace('req_3'))
    expect(log.bytes).toBe(two)
    expect(idsOf(log, 'acct_a')).toEqual(['req_3', 'req_2'])
    log.record('acct_b', trace('req_4'))
    log.clear('acct_a')
    log.forget('acct_b')
    expect(log.bytes).toBe(0)
  })

  it('holds nothing of what it dropped over a long run at its bound, on one account or taking turns', () => {
    const log = new RequestLog(1000, {maxBytes: 256 * KiB})
    const trace = requestTrace({id: 'req_same', request_body: 'x'.repeat(10 * KiB)})
    const run = (count: number) => {
      for (let i = 0; i < count; i++) log.record(i % 50 === 0 ? 'acct_b' : 'acct_a', trace)
    }
    run(20_000)
    const before = liveHeap()
    run(300_000)
    // 300,000 records leave as much as 20,000 did: no node, no slot of what went
    expect(liveHeap() - before).toBeLessThan(1024 * KiB)
    expect(log.bytes).toBeLessThanOrEqual(256 * KiB)
  })
})

describe('paging the request log', () => {
  it('walks every entry once when several share a request id, and a time too, and another joins them meanwhile', () => {
    const log = new RequestLog(1000)
    const at = '2026-01-02T03:04:05.000Z'
    const record = (n: number, created_at = at) =>
      log.record('acct_a', requestTrace({id: n % 2 ? 'twice' : 'again', path: `/v1/p${n}`, created_at}))
    for (let n = 0; n < 7; n++) record(n)
    const walked: string[] = []
    let after: string | undefined
    for (let pages = 0; pages < 10; pages++) {
      const page = log.list('acct_a', {}, {limit: 2, starting_after: after})!
      walked.push(...page.data.map((e) => e.path))
      if (pages === 0) record(7, '2026-01-02T03:04:06.000Z')
      if (!page.has_more) break
      after = page.next_cursor!
    }
    expect(walked).toEqual(['/v1/p6', '/v1/p5', '/v1/p4', '/v1/p3', '/v1/p2', '/v1/p1', '/v1/p0'])
  })

  it("pages on from a cursor's entry when the caller sends its request id again before the next page", () => {
    const log = new RequestLog(1000)
    for (let n = 1; n <= 6; n++) log.record('acct_a', requestTrace({id: `r${n}`, path: `/v1/p${n}`}))
    const first = log.list('acct_a', {}, {limit: 3})!
    expect(first.next_cursor).toBe('r4')
    log.record('acct_a', requestTrace({id: 'r4', path: '/v1/again'}))
    const next = log.list('acct_a', {}, {limit: 3, starting_after: first.next_cursor!})!
    expect(next.data.map((e) => e.path)).toEqual(['/v1/p3', '/v1/p2', '/v1/p1'])
  })

  it('pages on from an entry among several of one id and time when the oldest of them drops out of the log', () => {
    const log = new RequestLog(4)
    const at = '2026-01-02T03:04:05.000Z'
    for (let n = 0; n < 4; n++) log.record('acct_a', requestTrace({id: 'same', path: `/v1/p${n}`, created_at: at}))
    const first = log.list('acct_a', {}, {limit: 2})!
    expect(first.data.map((e) => e.path)).toEqual(['/v1/p3', '/v1/p2'])
    log.record('acct_a', requestTrace({id: 'other', path: '/v1/later'}))
    const next = log.list('acct_a', {}, {limit: 2, starting_after: first.next_cursor!})!
    expect(next.data.map((e) => e.path)).toEqual(['/v1/p1'])
  })
})
