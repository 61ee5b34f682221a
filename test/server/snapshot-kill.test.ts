/**
 * A snapshot's save and restore are each one unit of work: one journal
 * entry, or one transaction. A serve killed with SIGKILL while either runs
 * comes back with the account as it was before it or after it, never a mix.
 * The kill is aimed at the middle of one, timed by the same request just before.
 */
import {join} from 'node:path'
import {afterEach, expect, it} from 'vitest'
import {startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {type CliServer, startCliServer} from '../helpers/cli.js'
import {createTestDatabase, onPostgres} from '../helpers/postgres.js'
import {call, makeTempDir} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** CHECKS checks with three lines each, and their events: a restore that takes a while to write. */
const CHECKS = 400

/** A spawned `serve` on a data dir, or on a database of its own, and how to start it again in this process. */
async function killableServer() {
  const database = onPostgres ? await createTestDatabase() : undefined
  const dataDir = join(await makeTempDir(), 'data')
  const store = database ? ['--database', database.url] : ['--data', dataDir]
  const server: CliServer = await startCliServer([...store, '--seed', 'fixtures/seed.json'])
  cleanup.push(async () => {
    await server.stop()
    await database?.drop()
  })
  const base = server.url.replace(/\/v1$/, '')
  const api = (method: string, path: string, body?: unknown) => call(base, method, path, {body})
  const restart = async () => {
    const again = await startServer({port: 0, host: '127.0.0.1', ...(database ? {database: database.url} : {dataDir})})
    cleanup.push(() => again.close())
    return (method: string, path: string, body?: unknown) => call(again.url, method, path, {body})
  }
  return {server, api, restart}
}

async function pushMany(api: (method: string, path: string, body?: unknown) => Promise<{status: number}>) {
  for (let from = 0; from < CHECKS; from += 50) {
    const pushes = Array.from({length: 50}, (_, i) =>
      api(
        'PUT',
        `/v1/checks/external/k${from + i}`,
        checkWith([
          ['a', 1, 100],
          ['b', 2, 250],
          ['c', 1, 990],
        ]),
      ),
    )
    for (const answer of await Promise.all(pushes)) expect(answer.status).toBe(201)
  }
}

/** The account's records as a save exports them (under a name of their own). */
async function recordsOf(api: (method: string, path: string, body?: unknown) => Promise<{body: any}>, name: string) {
  await api('POST', '/v1/sim/snapshots', {name})
  return (await api('GET', `/v1/sim/snapshots/${name}/export`)).body.records
}

it('a kill during a restore leaves the account as before it or as the snapshot, never a mix', async () => {
  const {server, api, restart} = await killableServer()
  await pushMany(api)
  const saved = await recordsOf(api, 'big')
  expect(saved.checks).toHaveLength(CHECKS)
  await api('POST', '/v1/sim/reset')
  const before = await recordsOf(api, 'before')
  expect(before.checks).toHaveLength(0)
  // how long a restore's answer takes here, to aim the kill at its middle
  const started = performance.now()
  await api('POST', '/v1/sim/snapshots/big/restore')
  const took = performance.now() - started
  await api('POST', '/v1/sim/snapshots/before/restore')

  const restoring = api('POST', '/v1/sim/snapshots/big/restore').catch(() => undefined)
  await new Promise((resolve) => setTimeout(resolve, took / 2))
  await server.kill('SIGKILL')
  await restoring

  const after = await recordsOf(await restart(), 'after')
  expect([before, saved]).toContainEqual(after)
})

it('a kill during a save leaves no snapshot or the whole of it', async () => {
  const {server, api, restart} = await killableServer()
  await pushMany(api)
  const started = performance.now()
  await api('POST', '/v1/sim/snapshots', {name: 'probe'})
  const took = performance.now() - started
  const saving = api('POST', '/v1/sim/snapshots', {name: 'big'}).catch(() => undefined)
  await new Promise((resolve) => setTimeout(resolve, took / 2))
  await server.kill('SIGKILL')
  await saving

  const again = await restart()
  const found = await again('GET', '/v1/sim/snapshots/big')
  if (found.status === 404) return
  expect(found.body.counts).toMatchObject({checks: CHECKS, events: CHECKS})
  expect((await again('GET', '/v1/sim/snapshots/big/export')).body.records.checks).toHaveLength(CHECKS)
})
