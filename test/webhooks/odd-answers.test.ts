import {createServer as createHttpServer} from 'node:http'
import {type AddressInfo, createServer, type Socket} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {postDelivery} from '../../src/webhooks/send.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** A receiver that answers every connection's first bytes with `answer`, as sent, and keeps it open. */
async function rawReceiver(answer: string): Promise<string> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.once('data', () => socket.write(answer))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanup.push(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
}

const post = (url: string) => postDelivery(url, '{}', {'content-type': 'application/json'}, 5000)

describe('an attempt whose receiver answers oddly (docs/api.md, "Webhooks")', () => {
  it('is "not HTTP" when what comes back is another protocol, naming the parser code', async () => {
    const result = await post(await rawReceiver('SSH-2.0-OpenSSH_9.6\r\n'))
    expect(result).toMatchObject({status_code: null, error: 'not HTTP (HPE_INVALID_CONSTANT)'})
  })

  it('is its status when it switches protocols, at once rather than at the timeout', async () => {
    const url = await rawReceiver(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
    )
    expect(await post(url)).toMatchObject({status_code: 101, error: 'receiver answered 101'})
  })

  it('is its status for a 3xx that is no redirect, and a redirect not followed for one that is', async () => {
    const notModified = await post(await rawReceiver('HTTP/1.1 304 Not Modified\r\n\r\n'))
    expect(notModified).toMatchObject({status_code: 304, error: 'receiver answered 304'})
    const moved = await post(
      await rawReceiver('HTTP/1.1 308 Permanent Redirect\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n'),
    )
    expect(moved).toMatchObject({status_code: 308, error: 'redirect to /b is not followed'})
  })
})

describe('the connection an attempt leaves open', () => {
  it('closes once idle, though its receiver would keep it open for ever', async () => {
    const server = createHttpServer({keepAliveTimeout: 0}, (_req, res) => res.end('ok'))
    const closed = new Promise<void>((resolve) => server.on('connection', (socket) => socket.on('close', resolve)))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    cleanup.push(async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    })
    const result = await post(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`)
    expect(result).toMatchObject({status_code: 200, error: null})
    // the sender closes it: this receiver never does
    await closed
  })
})
