// A Tablepay webhook receiver in plain node:http that passes `tablepay receiver check`.
//
//   TABLEPAY_WEBHOOK_SECRET=whsec_… PORT=3000 node examples/receivers/node-http.mjs
//   tablepay receiver check --forward-to http://127.0.0.1:3000/webhooks
//
// Three rules make it correct:
// 1. Verify the raw body, byte for byte, before parsing it (a re-serialized body no longer matches).
// 2. Answer 2xx to a duplicate: delivery is at-least-once, deduplicate on the event id.
// 3. Answer 2xx to an older state and keep the newer one: order is not guaranteed.
import {createServer} from 'node:http'
import {pathToFileURL} from 'node:url'
import {verifySignature} from 'tablepay'

/** The request body as the bytes that arrived. */
export async function readRawBody(req) {
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  return Buffer.concat(chunks)
}

/**
 * What the receiver has handled: the event ids it has seen, and the newest
 * state of each resource. In production, keep both in your database.
 */
export class Inbox {
  #seen = new Set()
  #latest = new Map()

  /** Takes an event in; false when its id was handled before. */
  receive(event) {
    if (this.#seen.has(event.id)) return false
    this.#seen.add(event.id)
    const resource = event.data
    if (resource?.id !== undefined && this.isNewer(resource)) this.#latest.set(resource.id, resource)
    return true
  }

  /** Newer by updated_at, then by version: a claim or a payment changes a check without a new POS version. */
  isNewer(resource) {
    const current = this.#latest.get(resource.id)
    if (!current) return true
    if (resource.updated_at !== current.updated_at) return resource.updated_at > current.updated_at
    return (resource.version ?? 0) > (current.version ?? 0)
  }

  /** The newest state seen of the resource `id`, e.g. a check `chk_…`. */
  latest(id) {
    return this.#latest.get(id)
  }
}

/** The receiver: any path, POST only. */
export function createReceiver(secret, inbox = new Inbox()) {
  return createServer(async (req, res) => {
    if (req.method !== 'POST') return res.writeHead(405, {allow: 'POST'}).end()
    const body = await readRawBody(req)
    const result = verifySignature(body, req.headers['x-tablepay-signature'], secret)
    if (!result.valid) return res.writeHead(400, {'content-type': 'text/plain'}).end(result.reason)
    let event
    try {
      event = JSON.parse(body.toString('utf8'))
    } catch {
      return res.writeHead(400, {'content-type': 'text/plain'}).end('invalid_json')
    }
    const isNew = inbox.receive(event)
    // Answer at once (within 10 s), then do slow work elsewhere: a late answer is a failed delivery.
    res.writeHead(200, {'content-type': 'text/plain'}).end(isNew ? 'ok' : 'duplicate')
  })
}

/** Listens on 127.0.0.1:`port` (0 picks a free one) and prints the URL to register. */
export function listen(server, port = Number(process.env.PORT ?? 3000)) {
  server.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}/webhooks`))
  return server
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secret = process.env.TABLEPAY_WEBHOOK_SECRET
  if (!secret) {
    console.error("Set TABLEPAY_WEBHOOK_SECRET to the endpoint's whsec_… secret.")
    process.exit(1)
  }
  listen(createReceiver(secret))
}
