import {createServer, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {startTestServer} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

const CHUNK = Buffer.alloc(64 * 1024, 'x')

/**
 * A receiver that answers 200 with `total` bytes of `x` (Infinity: a body
 * that never ends), writing only as fast as the client reads. It reports
 * whether the client read it all or dropped the connection first.
 */
async function bigAnswerReceiver(total: number) {
  let finish!: (outcome: 'read to the end' | 'dropped') => void
  const outcome = new Promise<'read to the end' | 'dropped'>((resolve) => (finish = resolve))
  const write = (res: ServerResponse, left: number) => {
    while (left > 0) {
      const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, left))
      left -= chunk.length
      if (!res.write(chunk)) return void res.once('drain', () => write(res, left))
    }
    res.end(() => finish('read to the end'))
  }
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, {'content-type': 'text/plain'})
      res.on('close', () => finish('dropped'))
      write(res, total)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanup.push(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, outcome}
}

describe("a receiver's answer", () => {
  for (const [name, total] of [
    ['a 50 MB answer', 50 * 1024 * 1024],
    ['an answer that never ends', Infinity],
  ] as const) {
    it(`${name}: 4 KiB of it is kept and the connection dropped, well before the receiver timeout`, async () => {
      const receiver = await bigAnswerReceiver(total)
      const sim = await startTestServer({memory: true, serve: {receiverTimeoutMs: 20_000}})
      cleanup.push(() => sim.close())
      await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types: ['check.created']}})
      await sim.api('PUT', '/v1/checks/external/big', {body: checkWith([['a', 1, 100]])})
      expect(await receiver.outcome).toBe('dropped')
      await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 0.001}}) // waits for the attempt to be recorded
      const [delivery] = (await sim.api('GET', '/v1/deliveries')).body.data
      expect(delivery.status).toBe('succeeded')
      const [attempt] = delivery.attempts
      expect(attempt).toMatchObject({status_code: 200, error: null})
      expect(attempt.response_body).toBe('x'.repeat(4096))
    })
  }
})
