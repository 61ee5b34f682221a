import {createServer, type Server} from 'node:http'
import {connect} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startServer} from '../../src/server/start.js'
import {startSimulator} from '../../src/testing.js'

let holder: Server
let heldPort: number
beforeAll(async () => {
  holder = createServer((_req, res) => res.end('{"status": "ok"}'))
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
  heldPort = (holder.address() as {port: number}).port
})
afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())))

describe('an explicit port', () => {
  it('that another program holds makes startServer fail naming it, instead of moving to another port', async () => {
    const refusal = new RegExp(`port ${heldPort} on 127\\.0\\.0\\.1: it is in use.*--port 0`)
    await expect(startServer({port: heldPort, host: '127.0.0.1'})).rejects.toThrow(refusal)
  })

  it('that another program holds makes startSimulator fail too', async () => {
    await expect(startSimulator({port: heldPort})).rejects.toThrow(`port ${heldPort}`)
  })

  it('that is free is taken exactly, and port 0 takes a free one', async () => {
    const first = await startServer({port: 0, host: '127.0.0.1'})
    const port = Number(new URL(first.url).port)
    await first.close()
    const again = await startServer({port, host: '127.0.0.1'})
    try {
      expect(again.url).toBe(`http://127.0.0.1:${port}`)
      expect((await fetch(`${again.url}/v1/health`)).status).toBe(200)
    } finally {
      await again.close()
    }
  })
})

describe('close()', () => {
  it('ends a keep-alive connection a client holds open, rather than waiting for the client to drop it', async () => {
    const server = await startServer({port: 0, host: '127.0.0.1'})
    // fetch keeps its connection for 4 s after the answer; close must not wait for that
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200)
    const started = Date.now()
    await server.close()
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('ends a connection that has sent no request yet (fetch opens one after a stream it aborted), rather than waiting for its client', async () => {
    const server = await startServer({port: 0, host: '127.0.0.1'})
    const {port} = new URL(server.url)
    // what fetch leaves behind once a stream it read is aborted: a spare connection on which nothing is sent
    const spare = connect(Number(port), '127.0.0.1')
    await new Promise((resolve) => spare.once('connect', resolve))
    const hungUp = new Promise((resolve) => spare.once('close', resolve))
    spare.on('error', () => {})
    // accepted by now: the server takes pending connections in order, and this later one was answered
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200)

    // the client never leaves on its own: close resolves only if the server hangs up on it
    await server.close()
    await hungUp
    expect(spare.destroyed).toBe(true)
  })

  it('may be called twice, as a test and then its cleanup do', async () => {
    const server = await startServer({port: 0, host: '127.0.0.1'})
    await server.close()
    await expect(server.close()).resolves.toBeUndefined()
  })
})
