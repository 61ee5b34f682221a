import {describe, expect, it} from 'vitest'
import {type Entry, Scheduler, type SchedulerOptions} from '../../src/webhooks/scheduler.js'

/** Starts everything the scheduler lets start now, as the dispatcher does, and says which deliveries. */
function startAll(scheduler: Scheduler): string[] {
  const started: Entry[] = []
  while (scheduler.canStart) {
    const entry = scheduler.next()
    if (entry) started.push(entry)
  }
  return started.map((entry) => entry.id)
}

/** A scheduler with `count` deliveries per endpoint, all due at 0, named `<endpoint>-<n>`. */
function withDue(endpoints: string[], count: number, options?: SchedulerOptions): Scheduler {
  const scheduler = new Scheduler(options)
  for (let n = 0; n < count; n++) for (const endpoint of endpoints) scheduler.track(`${endpoint}-${n}`, endpoint, 0)
  scheduler.release(0)
  return scheduler
}

const countBy = (ids: string[]) =>
  ids.reduce<Record<string, number>>((counts, id) => {
    const endpoint = id.split('-')[0]!
    counts[endpoint] = (counts[endpoint] ?? 0) + 1
    return counts
  }, {})

describe('Scheduler: what is due', () => {
  it('starts nothing before its due time, and says when the next one falls due', () => {
    const scheduler = new Scheduler()
    scheduler.track('d2', 'we_a', 2000)
    scheduler.track('d1', 'we_a', 1000)
    expect(scheduler.nextDue()).toBe(1000)
    scheduler.release(999)
    expect(startAll(scheduler)).toEqual([])
    scheduler.release(1000)
    expect(startAll(scheduler)).toEqual(['d1'])
    expect(scheduler.nextDue()).toBe(2000)
  })

  it("starts an endpoint's deliveries in due order, and equal due times in the order they were told", () => {
    const scheduler = new Scheduler()
    scheduler.track('late', 'we_a', 30)
    scheduler.track('first', 'we_a', 10)
    scheduler.track('second', 'we_a', 10)
    scheduler.release(30)
    expect(startAll(scheduler)).toEqual(['first', 'second', 'late'])
  })

  it('a delivery written again keeps only its newest due time; one dropped is not started', () => {
    const scheduler = new Scheduler()
    scheduler.track('moved', 'we_a', 10)
    scheduler.track('moved', 'we_a', 50)
    scheduler.track('gone', 'we_a', 10)
    scheduler.drop('gone')
    expect(scheduler.nextDue()).toBe(50)
    scheduler.release(100)
    expect(startAll(scheduler)).toEqual(['moved'])
    expect(scheduler.nextDue()).toBeUndefined()
  })

  it('asks of the lane of each delivery that falls due first, a stale one left out, and changes nothing', () => {
    const scheduler = new Scheduler()
    for (const [id, endpoint, due] of [
      ['a', 'we_a', 10],
      ['stale', 'we_s', 10],
      ['b', 'we_b', 10],
      ['later', 'we_c', 20],
    ] as const)
      scheduler.track(id, endpoint, due)
    scheduler.drop('stale')
    const asked: string[] = []
    expect(scheduler.someDueNext((lane) => (asked.push(lane), false))).toBe(false)
    expect(asked.sort()).toEqual(['/we_a', '/we_b'])
    expect(scheduler.someDueNext((lane) => lane === '/we_b')).toBe(true)
    scheduler.release(10)
    expect(startAll(scheduler)).toEqual(['a', 'b'])
    expect(scheduler.nextDue()).toBe(20)
  })

  it('a delivery written while its attempt is out waits for that attempt to end', () => {
    const scheduler = withDue(['we_a'], 1)
    expect(startAll(scheduler)).toEqual(['we_a-0'])
    // the attempt recorded a retry due at once: it is not started beside the attempt still out
    scheduler.track('we_a-0', 'we_a', 0)
    scheduler.release(0)
    expect(startAll(scheduler)).toEqual([])
    scheduler.finish('we_a-0')
    scheduler.release(0)
    expect(startAll(scheduler)).toEqual(['we_a-0'])
  })
})

describe('Scheduler: fair shares (docs/api.md, "Slow receivers and backlogs")', () => {
  it('at most 32 attempts out at once, and at most 8 per endpoint', () => {
    expect(startAll(withDue(['we_a'], 20))).toHaveLength(8)
    const endpoints = Array.from({length: 40}, (_, n) => `e${n}`)
    expect(startAll(withDue(endpoints, 20))).toHaveLength(32)
  })

  it("two accounts' endpoints of one id are two endpoints: each has its own 8", () => {
    const scheduler = new Scheduler()
    for (let n = 0; n < 20; n++)
      for (const account of ['acct_a', 'acct_b']) scheduler.track(`${account}-${n}`, 'we_same', 0, account)
    scheduler.release(0)
    expect(countBy(startAll(scheduler))).toEqual({acct_a: 8, acct_b: 8})
  })

  it('endpoints with due work take the free slots in turn', () => {
    expect(startAll(withDue(['a', 'b'], 2)).slice(0, 4)).toEqual(['a-0', 'b-0', 'a-1', 'b-1'])
  })

  it('four endpoints that never answer hold at most 28 slots: a fifth one with work gets a slot at once', () => {
    const scheduler = withDue(['h1', 'h2', 'h3', 'h4'], 20)
    const hung = startAll(scheduler)
    expect(hung.length).toBeLessThanOrEqual(28)
    scheduler.track('ok-0', 'ok', 0)
    scheduler.release(0)
    expect(startAll(scheduler)).toEqual(['ok-0'])
  })

  it('a share is an equal part of the slots among the endpoints with work plus one', () => {
    // 3 endpoints with work: 32 / 4 = 8 each; 6: 32 / 7 is 5 each (30 out, 2 kept for the next); 15: 2 each
    expect(countBy(startAll(withDue(['a', 'b', 'c'], 20)))).toEqual({a: 8, b: 8, c: 8})
    expect(countBy(startAll(withDue([...'abcdef'], 20)))).toEqual({a: 5, b: 5, c: 5, d: 5, e: 5, f: 5})
    expect(new Set(Object.values(countBy(startAll(withDue([...'abcdefghijklmno'], 20)))))).toEqual(new Set([2]))
  })

  it('a share widens when an endpoint runs out of work, and its slot goes to one held back', () => {
    const scheduler = withDue([...'abcdefghijklmno'], 20, {concurrency: 32})
    // 15 endpoints with work: 2 each, 30 out
    expect(startAll(scheduler)).toHaveLength(30)
    // endpoint a's two attempts end and it has no work left: among 14, a share is 3, and the free slots fill up
    for (let n = 2; n < 20; n++) scheduler.drop(`a-${n}`)
    scheduler.finish('a-0')
    scheduler.finish('a-1')
    expect(startAll(scheduler)).toHaveLength(4)
    expect(scheduler.out).toBe(32)
  })

  it('an endpoint never gives up a slot it holds: with 40 endpoints out, a new one waits for an attempt to end', () => {
    const endpoints = Array.from({length: 40}, (_, n) => `e${n}`)
    const scheduler = withDue(endpoints, 2)
    expect(startAll(scheduler)).toHaveLength(32)
    scheduler.track('new-0', 'new', 0)
    scheduler.release(0)
    expect(startAll(scheduler)).toEqual([])
    scheduler.finish('e0-0')
    expect(startAll(scheduler)).toHaveLength(1)
  })

  it("an answer frees its endpoint's place, the attempt still out and holding an overall one until it is finished", () => {
    const scheduler = withDue(['a'], 20, {concurrency: 16})
    expect(startAll(scheduler)).toHaveLength(8)
    expect(scheduler.answered('a-0')).toBe(true)
    expect(scheduler.answered('a-0')).toBe(false)
    // the endpoint's place is free, but the attempt is still out: a newer commit of it waits for its end
    expect(scheduler.isOut('a-0')).toBe(true)
    expect(startAll(scheduler)).toEqual(['a-8'])
    for (let n = 1; n < 8; n++) scheduler.answered(`a-${n}`)
    expect(startAll(scheduler)).toHaveLength(7)
    // all 16 overall places are taken, though the endpoint has only 7 attempts waiting on its receiver
    scheduler.answered('a-8')
    expect(startAll(scheduler)).toEqual([])
    scheduler.finish('a-0')
    expect(scheduler.isOut('a-0')).toBe(false)
    expect(startAll(scheduler)).toEqual(['a-16'])
    // an attempt finished before its answer (it failed) frees both of its places
    scheduler.finish('a-9')
    expect(startAll(scheduler)).toEqual(['a-17'])
    expect(scheduler.out).toBe(16)
  })

  it('follows the options given: concurrency and per endpoint', () => {
    expect(startAll(withDue(['a'], 10, {perEndpoint: 3}))).toHaveLength(3)
    expect(startAll(withDue(['a', 'b'], 10, {concurrency: 6}))).toHaveLength(4)
    expect(startAll(withDue([...'abcdefgh'], 10, {concurrency: 4}))).toHaveLength(4)
  })
})

describe('Scheduler: requeue and cost', () => {
  it('an entry queued again starts again, unless stale or out', () => {
    const scheduler = withDue(['we_a'], 1)
    const entry = scheduler.entry('we_a-0')
    expect(startAll(scheduler)).toEqual(['we_a-0'])
    scheduler.requeue(entry!)
    expect(startAll(scheduler)).toEqual([])
    scheduler.finish('we_a-0')
    scheduler.requeue(entry!)
    expect(startAll(scheduler)).toEqual(['we_a-0'])
    scheduler.finish('we_a-0')
    scheduler.drop('we_a-0')
    scheduler.requeue(entry!)
    expect(startAll(scheduler)).toEqual([])
  })

  it('telling it of one more delivery touches a few entries, whatever the backlog', () => {
    const scheduler = new Scheduler()
    for (let n = 0; n < 50_000; n++) scheduler.track(`later-${n}`, 'we_a', 1_000_000 + n)
    scheduler.release(0)
    const before = scheduler.visits
    scheduler.track('now', 'we_b', 0)
    scheduler.release(0)
    expect(startAll(scheduler)).toEqual(['now'])
    expect(scheduler.visits - before).toBeLessThan(100)
  })

  it('a delivery written again and again is started once, at its newest due time', () => {
    const scheduler = new Scheduler()
    // enough rewrites for the heap to be swept of stale entries on the way
    for (let round = 1; round <= 5; round++) for (let n = 0; n < 1000; n++) scheduler.track(`d${n}`, 'we_a', round)
    expect(scheduler.nextDue()).toBe(5)
    scheduler.release(4)
    expect(startAll(scheduler)).toEqual([])
    scheduler.release(5)
    const started = startAll(scheduler)
    expect(started).toHaveLength(8)
    expect(new Set(started).size).toBe(8)
  })
})
