import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {verifySignature} from '../webhooks/signature.js'

/** The loopback receiver of a run, `${receiver}` (docs/scenarios.md, "The run's receiver"). */
export interface ScenarioReceiver {
  /** Its URL: `${receiver}`. */
  url: string
  /** Accepts deliveries signed with `secret` from now on: an endpoint's, once a step has made it. */
  trust(secret: string): void
  close(): Promise<void>
}

const MAX_BODY = 1 << 20

/**
 * Starts a webhook receiver on a free loopback port. It answers `200` to a
 * delivery whose signature one of the trusted secrets verifies (whatever its
 * timestamp: a scenario moves the scheduler clock, which signs), `400` to
 * any other; a path that ends in a status (`${receiver}/503`) answers that
 * status instead, to play a receiver that is down.
 *
 * @example
 * const receiver = await startScenarioReceiver()
 * const endpoint = await client.createWebhookEndpoint({url: receiver.url})
 * receiver.trust(endpoint.secret)
 */
export async function startScenarioReceiver(): Promise<ScenarioReceiver> {
  const secrets: string[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    let size = 0
    try {
      for await (const chunk of req) {
        size += (chunk as Buffer).length
        if (size <= MAX_BODY) chunks.push(chunk as Buffer)
      }
    } catch {
      // a request cut off before its end (its sender stopped, or gave up on it) has no one left to answer
      return void res.destroy()
    }
    const playing = /\/([1-5]\d\d)\/?$/.exec(req.url ?? '')?.[1]
    const body = Buffer.concat(chunks)
    const header = req.headers['x-tablepay-signature']
    const verified = secrets.some((secret) => verifySignature(body, header, secret, {tolerance: Infinity}).valid)
    const status = playing ? Number(playing) : verified ? 200 : 400
    res.writeHead(status, {'content-type': 'text/plain'}).end(verified ? 'ok' : 'signature not verified')
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    trust: (secret) => void secrets.push(secret),
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
