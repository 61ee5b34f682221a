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
const written = (attempted: boolean): DeliveryRecord =>
  ({
    id: 'dlv_1',
    endpoint_id: 'we_1',
    status: attempted ? 'pending' : 'canceled',
    attempts: attempted ? [{scheduled_at: isoTime(DUE)}] : [],
  }) as unknown as DeliveryRecord

type Claim = Attempt | 'held' | 'made' | undefined

/** Contested claims over a real scheduler holding `dlv_1`, due now, and a ledger whose claim answers `claims` in turn. */
function setup(...claims: Claim[]) {
  const scheduler = new Scheduler()
  scheduler.track('dlv_1', 'we_1', DUE)
  scheduler.release(DUE)
  const entry = scheduler.next()!
  const ledger = {
    failure: undefined as Error | undefined,
    stored: undefined as DeliveryRecord | undefined,
    claim: vi.fn(async () => claims.shift()),
    get: async () => ledger.stored,
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
  return {scheduler, entry, ledger, host, attempts, contested, claim}
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
    const {claim, attempts} = setup('made')
    expect(await claim()).toBeUndefined()
    expect(attempts.total).toBe(1)
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
    const ledger = {failure: undefined, claim: async () => undefined, get: async () => undefined}
    const contested = new ContestedClaims(scheduler, ledger, attempts, {run() {}, wake() {}})
    contested.heard('dlv_1', written(true))
    expect(attempts.total).toBe(1)
    // one it did not have queued, or a deletion, is not this instance's to count
    contested.heard('dlv_other', written(true))
    contested.heard('dlv_1', null)
    expect(attempts.total).toBe(1)
  })

  it('held while the delivery was written again: counted only if the write shows the attempt', async () => {
    const {scheduler, entry, ledger, attempts, contested} = setup('held', 'held')
    // the entry goes stale while the claim is out: a newer commit of the delivery replaced it
    scheduler.track('dlv_1', 'we_1', DUE + 60_000)
    ledger.stored = written(true)
    expect(await contested.claim(entry, 40_000)).toBeUndefined()
    expect(contested.size).toBe(0)
    expect(attempts.total).toBe(1)
    ledger.stored = written(false)
    await contested.claim(entry, 40_000)
    expect(attempts.total).toBe(1)
  })

  it('parks nothing once closed', async () => {
    const {claim, contested} = setup('held')
    contested.close()
    await claim()
    expect(contested.size).toBe(0)
  })
})
