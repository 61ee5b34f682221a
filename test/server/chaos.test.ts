import {afterEach, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {startTestServer} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

interface Delivery {
  id: string
  event_id: string
  attempts: {scheduled_at: string; duplicate?: true; status_code: number}[]
}

/**
 * A fresh server and receiver, one endpoint for check.created under `chaos`, and `n` checks pushed
 * in turn: what arrived, and the deliveries by creation order of their events.
 */
async function chaosRun(chaos: Record<string, number>, n: number) {
  const [receiver, sim] = await Promise.all([startReceiver(), startTestServer({memory: true})])
  cleanup.push(
    () => receiver.close(),
    () => sim.close(),
  )
  const endpoint = (
    await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types: ['check.created']}})
  ).body
  receiver.verifyWith(endpoint.secret)
  const set = await sim.api('PUT', `/v1/sim/webhook-endpoints/${endpoint.id}/chaos`, {body: chaos})
  expect(set.status).toBe(200)
  const checks: string[] = []
  for (let i = 0; i < n; i++)
    checks.push((await sim.api('PUT', `/v1/checks/external/c${i}`, {body: checkWith([['a', 1, 100]])})).body.id)
  const arrivals = () => receiver.received.map((r) => checks.indexOf(JSON.parse(r.body).data.id))
  const deliveries = async (): Promise<Delivery[]> => {
    const list = (await sim.api('GET', `/v1/deliveries?endpoint_id=${endpoint.id}&limit=100`)).body.data as Delivery[]
    return list.reverse()
  }
  return {receiver, sim, endpoint, checks, arrivals, deliveries}
}

const inversions = (order: number[]) =>
  order.reduce((sum, a, i) => sum + order.slice(i + 1).filter((b) => b < a).length, 0)

describe('delivery chaos', () => {
  it('with duplicate 1, every succeeded delivery arrives twice with the same event id and body, the second marked duplicate', async () => {
    const {receiver, deliveries} = await chaosRun({duplicate: 1}, 3)
    await receiver.waitFor(6)
    const byEvent = new Map<string, typeof receiver.received>()
    for (const r of receiver.received) {
      const id = r.headers['x-tablepay-event-id'] as string
      byEvent.set(id, [...(byEvent.get(id) ?? []), r])
    }
    expect(byEvent.size).toBe(3)
    for (const [id, requests] of byEvent) {
      expect(requests).toHaveLength(2)
      expect(requests[1]!.body).toBe(requests[0]!.body)
      expect(JSON.parse(requests[0]!.body).id).toBe(id)
      expect(requests.map((r) => r.headers['x-tablepay-delivery-attempt'])).toEqual(['1', '2'])
    }
    await expect.poll(async () => (await deliveries()).every((d) => d.attempts.length === 2)).toBe(true)
    for (const d of await deliveries()) {
      expect(d.attempts[0]).not.toHaveProperty('duplicate')
      expect(d.attempts[1]).toMatchObject({duplicate: true, status_code: 200})
    }
  })

  it('with a reorder window, nothing arrives before the clock moves, then some events arrive out of creation order', async () => {
    const {receiver, sim, arrivals} = await chaosRun({reorder_window_s: 10, seed: 5}, 8)
    await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 0.001}})
    const early = receiver.received.length
    expect(early).toBeLessThan(8)
    const advanced = await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 10}})
    expect(advanced.status).toBe(200)
    await receiver.waitFor(8)
    expect(inversions(arrivals())).toBeGreaterThan(0)
  })

  it('with the window 0, deliveries fall due in creation order', async () => {
    const {receiver, deliveries} = await chaosRun({reorder_window_s: 0, duplicate: 0, seed: 5}, 8)
    await receiver.waitFor(8)
    await expect.poll(async () => (await deliveries()).every((d) => d.attempts.length === 1)).toBe(true)
    // what chaos decides is when each falls due; two attempts in flight at once may still arrive either way round
    const due = (await deliveries()).map((d) => Date.parse(d.attempts[0]!.scheduled_at))
    expect(due).toEqual(due.toSorted((a, b) => a - b))
  })

  it('the same seed gives the same duplicates and the same order on two runs; another seed other ones', async () => {
    const observe = async (seed: number) => {
      const run = await chaosRun({duplicate: 0.5, reorder_window_s: 60, seed}, 10)
      await run.sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 60}})
      const done = await run.deliveries()
      await expect.poll(async () => (await run.deliveries()).every((d) => d.attempts.length > 0)).toBe(true)
      const settled = await run.deliveries()
      expect(settled).toHaveLength(done.length)
      // order: when each event's first attempt was due; duplicates: which events got a second attempt
      const due = settled.map((d) => Date.parse(d.attempts[0]!.scheduled_at))
      const order = [...due.keys()].sort((a, b) => due[a]! - due[b]! || a - b)
      const duplicated = settled.map((d) => d.attempts.some((a) => a.duplicate === true))
      return {order, duplicated}
    }
    const first = await observe(99)
    const second = await observe(99)
    expect(second).toEqual(first)
    expect(first.duplicated).toContain(true)
    expect(first.duplicated).toContain(false)
    expect(inversions(first.order)).toBeGreaterThan(0)
    expect(await observe(100)).not.toEqual(first)
  })

  it('GET shows it, DELETE ends it, bounds are checked, and another account sees no endpoint', async () => {
    const {sim, endpoint} = await chaosRun({duplicate: 0.25, reorder_window_s: 5, seed: 1}, 0)
    const path = `/v1/sim/webhook-endpoints/${endpoint.id}/chaos`
    expect((await sim.api('GET', path)).body).toEqual({
      object: 'webhook_chaos',
      endpoint_id: endpoint.id,
      enabled: true,
      duplicate: 0.25,
      reorder_window_s: 5,
      seed: 1,
    })
    expect((await sim.api('PUT', path, {body: {duplicate: 1.5}})).status).toBe(422)
    expect((await sim.api('PUT', path, {body: {reorder_window_s: 3601}})).status).toBe(422)
    expect((await sim.api('GET', path, {key: 'tp_test_other_write'})).status).toBe(404)
    expect((await sim.api('PUT', path, {body: {}, key: 'tp_test_demo_read'})).status).toBe(403)
    expect((await sim.api('DELETE', path)).body).toMatchObject({enabled: false, seed: null})
  })
})
