import {afterEach, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {startTestServer, type TestServer} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** A real server and a receiver that answers each request as `respond` says. */
async function setup(respond: Parameters<typeof startReceiver>[0], serve?: Parameters<typeof startTestServer>[0]) {
  const receiver = await startReceiver(respond)
  const sim: TestServer = await startTestServer(serve)
  cleanup.push(
    () => receiver.close(),
    () => sim.close(),
  )
  const register = async () => {
    const answer = await sim.api('POST', '/v1/webhook-endpoints', {
      body: {url: receiver.url, event_types: ['check.created']},
    })
    expect(answer.status).toBe(201)
    receiver.verifyWith(answer.body.secret)
    return answer.body as {id: string}
  }
  const push = async (id: string) =>
    expect((await sim.api('PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, 100]])})).status).toBe(201)
  const deliveriesOf = async (endpointId: string) =>
    (await sim.api('GET', `/v1/deliveries?endpoint_id=${endpointId}`)).body.data
  const advance = async (seconds: number) => {
    const answer = await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds}})
    expect(answer.status).toBe(200)
    return answer.body as {attempts: number}
  }
  return {receiver, sim, register, push, deliveriesOf, advance}
}

describe('an endpoint deleted while an attempt of its is out', () => {
  it.each([
    [200, 'succeeded'],
    [500, 'canceled'],
  ])(
    'records the attempt as it came: a %i leaves the delivery %s, and nothing more is sent',
    async (status, outcome) => {
      let release!: () => void
      const answered = new Promise<number>((resolve) => (release = () => resolve(status)))
      const {receiver, sim, register, push, deliveriesOf, advance} = await setup(() => answered)
      const endpoint = await register()
      await push(`del-${status}`)
      // the attempt has reached the receiver, which holds its answer until the endpoint is gone
      await receiver.waitFor(1)
      expect((await sim.api('DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(200)
      expect(await deliveriesOf(endpoint.id)).toMatchObject([{status: 'canceled', attempts: [], next_attempt_at: null}])
      release()
      // waits for the attempt out, then walks past every retry a failure would have had
      await advance(40 * 3600)
      const [delivery] = await deliveriesOf(endpoint.id)
      expect(delivery).toMatchObject({status: outcome, next_attempt_at: null})
      expect(delivery.attempts).toMatchObject([{attempt: 1, status_code: status}])
      expect(receiver.received).toHaveLength(1)
    },
  )
})
