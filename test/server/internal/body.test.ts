import {once} from 'node:events'
import {createServer, request} from 'node:http'
import type {AddressInfo} from 'node:net'
import {createApp, defineEventHandler, toNodeListener} from 'h3'
import {afterEach, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {ApiError} from '../../../src/domain/errors.js'
import {readJson} from '../../../src/server/internal/body.js'

const cleanup: (() => unknown)[] = []
afterEach(() => {
  while (cleanup.length > 0) cleanup.pop()!()
})

/** A real server whose only route reads a JSON body and hands the outcome of `readJson` to the test. */
async function serveReadJson() {
  let settle!: (outcome: unknown) => void
  const outcome = new Promise((resolve) => (settle = resolve))
  const app = createApp()
  app.use(
    defineEventHandler(async (event) => {
      try {
        settle(await readJson(event, z.object({a: z.number()})))
      } catch (error) {
        settle(error)
      }
      return {ok: true}
    }),
  )
  const server = createServer(toNodeListener(app))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  cleanup.push(() => server.close())
  return {server, port: (server.address() as AddressInfo).port, outcome}
}

describe('readJson', () => {
  it('reads a body sent in several chunks', async () => {
    const {port, outcome} = await serveReadJson()
    const req = request({
      port,
      host: '127.0.0.1',
      method: 'PUT',
      headers: {'content-type': 'application/json', 'content-length': 8},
    })
    req.write('{"a"')
    req.end(': 1}')
    expect(await outcome).toEqual({a: 1})
  })

  it('answers a client that leaves mid-body with a client error, not a failure of the server', async () => {
    const {server, port, outcome} = await serveReadJson()
    const req = request({
      port,
      host: '127.0.0.1',
      method: 'PUT',
      headers: {'content-type': 'application/json', 'content-length': 1000},
    })
    req.on('error', () => {})
    // the client leaves once the server has the request, with a fifth of its body
    server.once('request', () => req.destroy())
    req.write('{"a": 1')
    const error = await outcome
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({code: 'invalid_json', message: expect.stringMatching(/closed the connection/)})
  })
})
