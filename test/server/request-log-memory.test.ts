import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BODY_CAP} from '../../src/domain/request-log.js'
import {checkWith} from '../helpers/checks.js'
import {liveHeap} from '../helpers/heap.js'
import {OTHER_KEY, startTestServer, type TestServer, WRITE_KEY} from '../helpers/simulator.js'

let sim: TestServer
let keys: string[]
beforeAll(async () => {
  sim = await startTestServer({memory: true})
  const scratch = await sim.api('POST', '/v1/sim/accounts')
  expect(scratch.status).toBe(201)
  keys = [WRITE_KEY, OTHER_KEY, scratch.body.api_keys[0].key]
})
afterAll(() => sim.close())

const MB = 1024 * 1024

/** The length of each refused push's logged body, read as the dashboard reads the log (a rendered entry is kept too). */
async function cutBodies(key: string): Promise<number[]> {
  const page = await sim.api('GET', '/v1/sim/requests?limit=100&method=PUT', {key})
  return page.body.data.map((entry: {request_body: string; request_body_truncated: boolean}) =>
    entry.request_body_truncated ? entry.request_body.length : -1,
  )
}

describe('the request log under a flood of large bodies', () => {
  it('keeps 64 KiB of a refused 1 MB body, never the request: the heap grows by the cut copies only', async () => {
    // a valid check but for one unknown field of a megabyte: refused 422 after the whole body is parsed
    const body = JSON.stringify({...checkWith([['a', 1, 100]]), padding: 'x'.repeat(1_000_000)})
    const perAccount = 30
    // once before measuring, so that what the first request allocates for good (compiled code) is not counted
    for (const key of keys) await sim.api('PUT', '/v1/checks/external/flood', {key, body})
    for (const key of keys) expect((await sim.api('POST', '/v1/sim/reset', {key})).status).toBe(200)
    const before = liveHeap()
    for (let i = 0; i < perAccount; i++) {
      const answers = await Promise.all(keys.map((key) => sim.api('PUT', '/v1/checks/external/flood', {key, body})))
      for (const answer of answers) expect(answer.status).toBe(422)
    }
    for (const key of keys) expect(await cutBodies(key)).toEqual(Array(perAccount).fill(BODY_CAP))
    const grown = liveHeap() - before
    const entries = perAccount * keys.length
    // each entry holds at most its two cut bodies; the raw requests would be 90 MB
    expect(grown).toBeLessThan(entries * 2 * BODY_CAP + 8 * MB)
  })
})
