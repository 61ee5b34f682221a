import {spawn} from 'node:child_process'
import {createServer, type IncomingHttpHeaders} from 'node:http'
import type {AddressInfo} from 'node:net'
import Stripe from 'stripe'

// Stripe's own verifier, independent of ours: every delivery a test receives must pass it
const stripe = new Stripe('sk_test_unused')

export interface Received {
  headers: IncomingHttpHeaders
  body: string
}

/**
 * A real webhook receiver on a free loopback port. `respond` decides each
 * answer (a status, or 'hang' to never answer); `waitFor(n)` resolves once n
 * requests have arrived. Once `verifyWith(secret)` names the endpoints'
 * secrets, every request, before and after, must pass Stripe's
 * `constructEvent` with one of them, or `close()` throws.
 */
export async function startReceiver(respond: (req: Received) => number | 'hang' | Promise<number> = () => 200) {
  const received: Received[] = []
  const waiters: {n: number; resolve: () => void}[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const request = {headers: req.headers, body: Buffer.concat(chunks).toString('utf8')}
    received.push(request)
    for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve()
    const answer = await respond(request)
    if (answer === 'hang') return
    res.writeHead(answer, answer >= 300 && answer < 400 ? {location: 'https://example.com/'} : {}).end('ok')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const secrets: string[] = []
  const verifies = ({body, headers}: Received) =>
    secrets.some((secret) => {
      try {
        stripe.webhooks.constructEvent(body, headers['x-tablepay-signature'] as string, secret)
        return true
      } catch {
        return false
      }
    })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    waitFor: (n: number) =>
      new Promise<void>((resolve) => (received.length >= n ? resolve() : waiters.push({n, resolve}))),
    verifyWith: (secret: string) => void secrets.push(secret),
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      const failed = secrets.length === 0 ? [] : received.filter((request) => !verifies(request))
      if (failed.length > 0)
        throw new Error(
          `${failed.length} of ${received.length} deliveries failed Stripe's constructEvent, e.g. ${failed[0]!.headers['x-tablepay-signature']}`,
        )
    },
  }
}

/**
 * Starts a receiver program as a user would (`PORT=0 TABLEPAY_WEBHOOK_SECRET=… command args…`). `url`
 * resolves with the URL it prints (`listening on URL`), and rejects if it exits first.
 */
export function spawnReceiver(command: string, args: string[], secret: string) {
  const child = spawn(command, args, {
    env: {...process.env, PORT: '0', TABLEPAY_WEBHOOK_SECRET: secret},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
  const url = new Promise<string>((resolve, reject) => {
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk
      const url = /listening on (\S+)/.exec(stdout)?.[1]
      if (url) resolve(url)
    })
    child.on('error', reject)
    child.on('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited (${code}): ${stderr}`)))
  })
  // rejects for whoever awaits it; a receiver stopped before it listened is no error of its own
  url.catch(() => {})
  const exited = new Promise((resolve) => child.on('exit', resolve))
  return {
    url,
    /** Kills the receiver; resolves once it has exited. */
    stop() {
      child.kill()
      return exited
    },
  }
}
