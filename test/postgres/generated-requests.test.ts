import {expect, test} from 'vitest'
import type {RunningServer} from '../../src/server/start.js'
import {drawnRequests, wrongAnswer} from '../helpers/generated-requests.js'
import {call} from '../helpers/simulator.js'
import {useTwoInstances} from '../helpers/two-instances.js'

let a: RunningServer, b: RunningServer
useTwoInstances((servers) => ({a, b} = servers))

test('two instances of one sandbox, sent eight streams of drawn requests at once, answer no 5xx and then show the same records', async () => {
  const wrong: string[] = []
  const stream = async (seed: number) => {
    // each stream's requests go to one instance and the other in turn, as behind a load balancer
    const {next, send} = await drawnRequests(seed % 2 ? [a.url, b.url] : [b.url, a.url], seed)
    for (let i = 0; i < 250; i++) {
      const request = next()
      // a fault answers every stream's requests until it is cleared: one of them could answer 5xx meanwhile
      if (request.path.startsWith('/v1/sim/faults')) continue
      const said = wrongAnswer(request, await send(request))
      if (said) wrong.push(said)
    }
  }
  await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((n) => stream(20_261_130 + n)))
  expect(wrong).toEqual([])
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
