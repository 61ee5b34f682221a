import {afterEach, describe, expect, it, vi} from 'vitest'
import type {DeliveryRecord} from '../../src/domain/records.js'
import {isoTime} from '../../src/domain/timestamps.js'
import {AttemptCounter} from '../../src/webhooks/attempt-counter.js'
import {CLAIM_RECHECK_MS, ContestedClaims} from '../../src/webhooks/contested-claims.js'
import type {Attempt} from '../../src/webhooks/dispatcher-service.js'
import {Scheduler} from '../../src/webhooks/scheduler.js'

afterEach(() => {
  vi.useRealTimers()
})

const DUE = Date.parse('2026-11-25T00:00:00.000Z')

/** The delivery as another instance wrote it: with the attempt due at `due` made, or canceled unsent. */
const written = (attempted: boolean): DeliveryRecord => (attempted ? madeAt(DUE) : canceled)

/** The delivery with attempts made for each of `dues`, the next due a minute after the last. */
const madeAt = (...dues: number[]): DeliveryRecord =>
  ({
    id: 'dlv_1',
    endpoint_id: 'we_1',
    status: 'pending',
    next_attempt_at: isoTime(dues.at(-1)! + 60_000),
    attempts: dues.map((due) => ({scheduled_at: isoTime(due)})),
  }) as unknown as DeliveryRecord

const canceled = {id: 'dlv_1', endpoint_id: 'we_1', status: 'canceled', attempts: []} as unknown as DeliveryRecord

type Claim = Attempt | 'held' | undefined

/**
 * Contested claims over a real scheduler holding `dlv_1`, due now, and a ledger whose claim answers `claims` in
 * turn. `hear` is a commit of the delivery reaching the dispatcher: contested claims first, then the queues.
 * While its claim is out, the ledger passes `stored` on, if set: a commit heard meanwhile, or the delivery as
 * the service reads it when it finds the attempt gone.
 */
function setup(...claims: Claim[]) {
  const scheduler = new Scheduler()
  scheduler.track('dlv_1', 'we_1', DUE)
  scheduler.release(DUE)
  const entry = scheduler.next()!
  const hear = (record: DeliveryRecord) => {
    contested.heard(record.id, record)
    if (record.status === 'pending') scheduler.track(record.id, 'we_1', Date.parse(record.next_attempt_at!))
    else scheduler.drop(record.id)
  }
  const ledger = {
    failure: undefined as Error | undefined,
    stored: undefined as DeliveryRecord | undefined,
    claim: vi.fn(async () => {
      const answer = claims.shift()
      if (ledger.stored) hear(ledger.stored)
      return answer
    }),
  }
  const host = {run: vi.fn(), wake: vi.fn()}
  const attempts = new AttemptCounter()
  const contested = new ContestedClaims(scheduler, ledger, attempts, host)
  // the claim runs as the attempt's first step; its end frees the slot as the dispatcher's does
  const claim = async () => {
    const result = await contested.claim(entry, 40_000)
    scheduler.finish(entry.id)
    return result
  }
  return {scheduler, entry, ledger, host, attempts, contested, claim, hear}
}

describe('ContestedClaims', () => {
  it('hands over the attempt this instance claimed, with the lease asked for', async () => {
    const attempt = {delivery: written(false), target: undefined}
    const {claim, ledger, attempts, contested} = setup(attempt)
    expect(await claim()).toBe(attempt)
    expect(ledger.claim).toHaveBeenCalledWith('dlv_1', DUE, 40_000)
    expect(attempts.total).toBe(0)
    expect(contested.size).toBe(0)
  })

  it('an attempt another instance made before this one could claim it is counted once, and not made here', async () => {
    const {claim, attempts, ledger, hear} = setup(undefined)
    ledger.stored = madeAt(DUE)
    expect(await claim()).toBeUndefined()
    expect(attempts.total).toBe(1)
    // that instance's own commit of it, heard later, counts nothing more
    hear(madeAt(DUE))
    expect(attempts.total).toBe(1)
  })

  it('attempts another instance made one after another before this one heard of the first each count once', async () => {
    const {claim, attempts, ledger, hear} = setup(undefined)
    // the delivery as stored when this claim found it gone: two attempts made since the one queued here
    ledger.stored = madeAt(DUE, DUE + 60_000)
    await claim()
    expect(attempts.total).toBe(2)
    // the notices of both commits arrive later, each read back as the delivery is then: nothing more
    hear(madeAt(DUE, DUE + 60_000))
    hear(madeAt(DUE, DUE + 60_000))
    expect(attempts.total).toBe(2)
  })

  it('a record that shows several attempts since the one waited for counts each', async () => {
    const {claim, attempts, contested} = setup('held')
    await claim()
    contested.heard('dlv_1', madeAt(DUE, DUE + 60_000, DUE + 180_000))
    expect(attempts.total).toBe(3)
  })

  it('the record of an attempt this instance claimed and sent is not counted again', async () => {
    const attempt = {delivery: written(false), target: undefined}
    const {entry, attempts, contested, scheduler} = setup(attempt)
    expect(await contested.claim(entry, 40_000)).toBe(attempt)
    // out, as the dispatcher keeps it until its record is made: the record heard is its own (counted as sent)
    contested.heard('dlv_1', madeAt(DUE))
    expect(attempts.total).toBe(0)
    scheduler.finish(entry.id)
  })

  it("one another instance holds is parked, and counted when that instance's record of the attempt arrives", async () => {
    const {claim, attempts, contested, host} = setup('held')
    expect(await claim()).toBeUndefined()
    expect(contested.size).toBe(1)
    expect(contested.held()).toMatchObject([{endpointId: 'we_1', deliveryId: 'dlv_1'}])
    contested.heard('dlv_1', written(true))
    expect(contested.size).toBe(0)
    expect(attempts.total).toBe(1)
    expect(host.wake).toHaveBeenCalled()
  })

  it('a parked delivery that the other instance canceled unsent is no attempt', async () => {
    const {claim, attempts, contested} = setup('held')
    await claim()
    contested.heard('dlv_1', written(false))
    expect(contested.size).toBe(0)
    expect(attempts.total).toBe(0)
  })

  it('a parked delivery is claimed again every CLAIM_RECHECK_MS: it is queued again and the dispatcher runs', async () => {
    vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']})
    const {claim, scheduler, host, contested} = setup('held')
    await claim()
    expect(scheduler.canStart).toBe(false)
    vi.advanceTimersByTime(CLAIM_RECHECK_MS - 1)
    expect(host.run).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(host.run).toHaveBeenCalledOnce()
    expect(scheduler.canStart).toBe(true)
    // still parked until a claim settles it: an advance waits for it meanwhile
    expect(contested.size).toBe(1)
    contested.close()
  })

  it('while the storage has failed, the recheck only looks again later', async () => {
    vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']})
    const {claim, ledger, host, contested} = setup('held')
    await claim()
    ledger.failure = new Error('gone')
    vi.advanceTimersByTime(CLAIM_RECHECK_MS * 3)
    expect(host.run).not.toHaveBeenCalled()
    ledger.failure = undefined
    vi.advanceTimersByTime(CLAIM_RECHECK_MS)
    expect(host.run).toHaveBeenCalledOnce()
    contested.close()
  })

  it('an attempt another instance made of a delivery queued here and not started is counted once', () => {
    const scheduler = new Scheduler()
    scheduler.track('dlv_1', 'we_1', DUE)
    const attempts = new AttemptCounter()
    const ledger = {failure: undefined, claim: async () => undefined}
    const contested = new ContestedClaims(scheduler, ledger, attempts, {run() {}, wake() {}})
    contested.heard('dlv_1', written(true))
    expect(attempts.total).toBe(1)
    // one it did not have queued, or a deletion, is not this instance's to count
    contested.heard('dlv_other', written(true))
    contested.heard('dlv_1', null)
    expect(attempts.total).toBe(1)
  })

  it('held while the delivery was written again: counted as that write is heard, if it shows the attempt', async () => {
    const {entry, ledger, attempts, contested} = setup('held')
    // the entry goes stale while the claim is out: a newer commit of the delivery replaced it
    ledger.stored = written(true)
    expect(await contested.claim(entry, 40_000)).toBeUndefined()
    expect(contested.size).toBe(0)
    expect(attempts.total).toBe(1)
  })

  it('held while the delivery was canceled unsent: no attempt', async () => {
    const {entry, ledger, attempts, contested} = setup('held')
    ledger.stored = written(false)
    expect(await contested.claim(entry, 40_000)).toBeUndefined()
    expect(contested.size).toBe(0)
    expect(attempts.total).toBe(0)
  })

  it('parks nothing once closed', async () => {
    const {claim, contested} = setup('held')
    contested.close()
    await claim()
    expect(contested.size).toBe(0)
  })
})
