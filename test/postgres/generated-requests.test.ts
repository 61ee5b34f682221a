import {expect, test} from 'vitest'
import type {RunningServer} from '../../src/server/start.js'
import {wrongAnswers} from '../helpers/generated-requests.js'
import {call} from '../helpers/simulator.js'
import {useTwoInstances} from '../helpers/two-instances.js'

let a: RunningServer, b: RunningServer
useTwoInstances((servers) => ({a, b} = servers))

test('two instances of one sandbox, sent eight streams of drawn requests at once and resets now and then, answer no 5xx and then show the same records', async () => {
  const resets: number[] = []
  const reset = async (i: number) =>
    i % 25 === 0 && resets.push((await call(i % 2 ? a.url : b.url, 'POST', '/v1/sim/reset')).status)
  // each stream's requests go to one instance and the other in turn, as behind a load balancer
  const streams = [1, 2, 3, 4, 5, 6, 7, 8].map((n) =>
    wrongAnswers(n % 2 ? [a.url, b.url] : [b.url, a.url], 20_261_130 + n, 250, {
      faults: false,
      before: n === 1 ? reset : undefined,
    }),
  )
  expect((await Promise.all(streams)).flat()).toEqual([])
  expect(resets).toEqual(Array(10).fill(200))
  // both read the one database: what either shows, the other shows too, but for the origin of the guest URLs (each
  // instance's own without --public-url: a check's as it answers, an event's as the instance that wrote it)
  const shown = async (url: string, path: string) => {
    const answer = await call(url, 'GET', `${path}?limit=100`)
    expect(answer.status).toBe(200)
    return answer.text.replaceAll(new URL(a.url).origin, 'ORIGIN').replaceAll(new URL(b.url).origin, 'ORIGIN')
  }
  for (const path of ['/v1/checks', '/v1/events', '/v1/deliveries', '/v1/webhook-endpoints', '/v1/sim/snapshots'])
    expect(await shown(b.url, path)).toBe(await shown(a.url, path))
})
