import {afterEach, describe, expect, it, vi} from 'vitest'
import {AttemptCounter} from '../../src/webhooks/attempt-counter.js'
import {ClockDriver, type ClockStore, type DrivenWork} from '../../src/webhooks/clock-driver.js'
import {SchedulerClock} from '../../src/webhooks/clock.js'

afterEach(() => {
  vi.useRealTimers()
})

const T0 = Date.parse('2026-11-25T00:00:00.000Z')

/**
 * A driver over plain data: `due` holds the due times not yet reached (scheduler ms from T0); each run makes
 * the attempts due by then (counted), or leaves them out while `hold` says so. The wall clock stands still.
 */
function setup({shared = false, hold = false} = {}) {
  const clock = new SchedulerClock(1, 0, () => T0)
  const saved: number[] = []
  let followers: ((offset: number) => void)[] = []
  let savedOffset = 0
  const store: ClockStore = {
    shared,
    saveClockOffset: async (offset) => void saved.push((savedOffset = offset)),
    fannedOut: async () => {},
    retireExpired: async () => {},
    clockOffset: async () => savedOffset,
    followClock: (listener) => {
      followers.push(listener)
      return () => (followers = followers.filter((f) => f !== listener))
    },
    clockTurn: (change) => change(),
  }
  const attempts = new AttemptCounter()
  const state = {due: [] as number[], ranAt: [] as number[], out: 0, ends: [] as (() => void)[], runs: 0}
  const work: DrivenWork = {
    run() {
      state.runs++
      const now = clock.now() - T0
      for (const due of state.due.filter((d) => d <= now)) {
        state.due.splice(state.due.indexOf(due), 1)
        state.ranAt.push(now)
        if (hold) state.out++
        else attempts.count()
      }
    },
    nextDue: () => (state.due.length > 0 ? T0 + Math.min(...state.due) : undefined),
    holdsNext: () => false,
    waitingForSlot: () => false,
    out: () => state.out > 0,
    attemptEnds: () => new Promise((resolve) => state.ends.push(resolve)),
    stopped: () => false,
  }
  const driver = new ClockDriver(clock, store, work, attempts)
  driver.start()
  /** The attempts out end, counted; an advance waiting on them goes on. */
  const endAll = () => {
    for (; state.out > 0; state.out--) attempts.count()
    for (const end of state.ends.splice(0)) end()
  }
  const follow = (offset: number) => followers.forEach((f) => f(offset))
  return {clock, saved, state, driver, endAll, follow, setSaved: (offset: number) => (savedOffset = offset)}
}

describe('ClockDriver: clock advance', () => {
  it('stops at each due time on the way, saving the offset before it moves, and answers the attempts made', async () => {
    const {clock, saved, state, driver} = setup()
    state.due.push(60_000, 1000, 300_000)
    expect(await driver.advance(120)).toBe(2)
    expect(state.ranAt).toEqual([1000, 60_000])
    expect(saved).toEqual([1000, 60_000, 120_000])
    expect(clock.offset).toBe(120_000)
    expect(state.due).toEqual([300_000])
  })

  it('ends only once the attempts out have ended, and says meanwhile where it goes', async () => {
    const {state, driver, endAll, clock} = setup({hold: true})
    state.due.push(1000)
    const advance = driver.advance(10)
    await vi.waitFor(() => expect(state.ends).toHaveLength(1))
    expect(driver.target).toBe(T0 + 10_000)
    expect(clock.offset).toBe(1000)
    endAll()
    expect(await advance).toBe(1)
    expect(driver.target).toBeUndefined()
    expect(clock.offset).toBe(10_000)
  })

  it('advances run one after another: the second starts where the first left the clock', async () => {
    const {saved, driver} = setup()
    await Promise.all([driver.advance(5), driver.advance(5)])
    expect(saved).toEqual([5000, 10_000])
  })

  it('reset saves 0 and puts the clock back on the wall clock', async () => {
    const {clock, saved, driver} = setup()
    await driver.advance(30)
    await driver.reset()
    expect(saved.at(-1)).toBe(0)
    expect(clock.offset).toBe(0)
  })
})

describe('ClockDriver: the clock shared by instances', () => {
  it('follows an offset another instance saved, back too, and runs what fell due on it', async () => {
    const {clock, state, follow} = setup({shared: true})
    state.due.push(2000)
    follow(5000)
    await vi.waitFor(() => expect(clock.offset).toBe(5000))
    expect(state.ranAt).toEqual([5000])
    follow(0)
    await vi.waitFor(() => expect(clock.offset).toBe(0))
  })

  it('syncClock reads the saved offset first when shared; alone, its own clock is the only one', async () => {
    const shared = setup({shared: true})
    shared.setSaved(7000)
    await shared.driver.syncClock()
    expect(shared.clock.offset).toBe(7000)
    const alone = setup()
    alone.setSaved(7000)
    await alone.driver.syncClock()
    expect(alone.clock.offset).toBe(0)
  })

  it('an advance starts from the shared clock as last saved', async () => {
    const {clock, driver, setSaved} = setup({shared: true})
    setSaved(60_000)
    await driver.advance(1)
    expect(clock.offset).toBe(61_000)
  })

  it('follows nothing once closed', async () => {
    const {clock, driver, follow} = setup({shared: true})
    driver.close()
    follow(5000)
    await driver.syncClock()
    expect(clock.offset).toBe(0)
  })
})

describe('ClockDriver: the timer', () => {
  it('fires at the earliest due time and runs what is due; an advance sets none while it drives', async () => {
    vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']})
    let wall = T0
    const clock = new SchedulerClock(1, 0, () => wall)
    const runs: number[] = []
    let due: number | undefined = T0 + 500
    const work: DrivenWork = {
      run: () => void runs.push(wall - T0),
      nextDue: () => due,
      holdsNext: () => false,
      waitingForSlot: () => false,
      out: () => false,
      attemptEnds: () => Promise.resolve(),
      stopped: () => false,
    }
    const store: ClockStore = {
      shared: false,
      saveClockOffset: async () => {},
      fannedOut: async () => {},
      retireExpired: async () => {},
      clockOffset: async () => 0,
      followClock: () => () => {},
      clockTurn: (change) => change(),
    }
    const driver = new ClockDriver(clock, store, work, new AttemptCounter())
    driver.arm()
    wall += 499
    vi.advanceTimersByTime(499)
    expect(runs).toEqual([])
    wall += 1
    vi.advanceTimersByTime(1)
    expect(runs).toEqual([500])
    // nothing due: no timer
    due = undefined
    driver.arm()
    expect(vi.getTimerCount()).toBe(0)
    driver.close()
  })
})
