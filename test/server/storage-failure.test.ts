import {once} from 'node:events'
import {symlink} from 'node:fs/promises'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {toNodeListener} from 'h3'
import {afterEach, describe, expect, it} from 'vitest'
import {createService, seedStore} from '../../src/server/service.js'
import {Store} from '../../src/store/store.js'
import {checkWith} from '../helpers/checks.js'
import {call, makeTempDir, READ_KEY, TEST_SEED} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/**
 * The API over a store whose next journal segment is /dev/full: from the
 * first change after start-up, every write fails with ENOSPC, as on a full disk.
 */
async function serveOnFullDisk() {
  const dir = await makeTempDir()
  const store = await Store.open({dir})
  cleanup.push(() => store.close())
  await seedStore(store, {seed: TEST_SEED})
  await symlink('/dev/full', join(dir, 'journal.000000000002.ndjson'))
  await store.compact()
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const service = createService(store, url, {})
  server.on('request', toNodeListener(service.app))
  cleanup.push(async () => {
    await service.close()
    server.close()
  })
  return url
}

describe('when the data dir cannot be written', () => {
  it('a push answers 503 storage_unavailable, then every request does, and nothing unsaved is shown', async () => {
    const url = await serveOnFullDisk()
    const push = await call(url, 'PUT', '/v1/checks/external/t1', {body: checkWith([['a', 1, 500]])})
    expect(push.status).toBe(503)
    expect(push.body).toEqual({error: {code: 'storage_unavailable', message: expect.stringMatching(/ENOSPC.*restart/), request_id: push.headers.get('x-request-id')}})

    for (const [method, path, key] of [['GET', '/v1/checks', READ_KEY], ['GET', '/v1/health', undefined], ['PUT', '/v1/checks/external/t2', undefined]] as const) {
      const answer = await call(url, method, path, {key, body: method === 'PUT' ? checkWith([['b', 1, 300]]) : undefined})
      expect([method, path, answer.status, (answer.body as {error: {code: string}}).error.code]).toEqual([method, path, 503, 'storage_unavailable'])
    }
  })
})
