import {mkdir, readdir, rm, symlink} from 'node:fs/promises'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {fanOut} from '../../src/domain/deliveries.js'
import {createEndpoint} from '../../src/domain/endpoints.js'
import {newEvent} from '../../src/domain/events.js'
import {seedStore} from '../../src/server/service.js'
import {Journal} from '../../src/store/journal.js'
import {put, Store} from '../../src/store/store.js'
import {checkRecord, checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {serveStorage} from '../helpers/serve-storage.js'
import {call, makeTempDir, READ_KEY, TEST_SEED} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** From now on every journal write of `store` fails with ENOSPC, as on a full disk: its next segment is /dev/full. */
async function fillDisk(store: Store, dir: string, lastSeq: number) {
  await symlink('/dev/full', join(dir, `journal.${String(lastSeq + 1).padStart(12, '0')}.ndjson`))
  await store.compact()
}

/** The seeded API over a store in `dir`, on a real port; `prepare` commits what the test needs before the disk fills. */
async function serveOnFullDisk(prepare?: (store: Store) => Promise<void>) {
  const dir = await makeTempDir()
  const store = await Store.open({dir})
  cleanup.push(() => store.close())
  await seedStore(store, {seed: TEST_SEED})
  await prepare?.(store)
  await fillDisk(store, dir, prepare ? 2 : 1)
  const {url, running, close} = await serveStorage(store)
  cleanup.push(close)
  return {url, dispatcher: running.dispatcher}
}

describe('when the data dir cannot be written', () => {
  it('a push answers 503 storage_unavailable, then every request does, and nothing unsaved is shown', async () => {
    const {url} = await serveOnFullDisk()
    const push = await call(url, 'PUT', '/v1/checks/external/t1', {body: checkWith([['a', 1, 500]])})
    expect(push.status).toBe(503)
    expect(push.body).toEqual({
      error: {
        code: 'storage_unavailable',
        message: expect.stringMatching(/ENOSPC.*restart/),
        request_id: push.headers.get('x-request-id'),
      },
    })

    for (const [method, path, key] of [
      ['GET', '/v1/checks', READ_KEY],
      ['GET', '/v1/health', undefined],
      ['PUT', '/v1/checks/external/t2', undefined],
    ] as const) {
      const answer = await call(url, method, path, {
        key,
        body: method === 'PUT' ? checkWith([['b', 1, 300]]) : undefined,
      })
      expect([method, path, answer.status, (answer.body as {error: {code: string}}).error.code]).toEqual([
        method,
        path,
        503,
        'storage_unavailable',
      ])
    }
  })

  it('the server says once, in one line without a stack trace, what failed and what to do', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    cleanup.push(async () => logged.mockRestore())
    const {url} = await serveOnFullDisk()
    await call(url, 'PUT', '/v1/checks/external/t1', {body: checkWith([['a', 1, 500]])})
    await call(url, 'PUT', '/v1/checks/external/t2', {body: checkWith([['a', 1, 500]])})
    const lines = logged.mock.calls.map((args) => args.map(String).join(' '))
    expect(lines).toEqual([
      expect.stringMatching(
        /^\[tablepay\] store: writing the journal in .+ failed \(ENOSPC: no space left on device, write\)\. Every change answered before is kept; .*To go on: free space on its disk, then restart `tablepay serve`\.$/,
      ),
    ])
    expect(lines[0]).not.toMatch(/\n\s+at /)
  })

  it('a journal write that fails while a compaction writes its documents fails the store, not the process', async () => {
    const unhandled: unknown[] = []
    const note = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', note)
    cleanup.push(async () => process.off('unhandledRejection', note))
    vi.spyOn(console, 'error').mockImplementation(() => {})
    cleanup.push(async () => vi.mocked(console.error).mockRestore())
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    cleanup.push(() => store.close().catch(() => {}))
    // a checks document of megabytes: its write takes many turns, the journal's failure one
    await store.commit(Array.from({length: 20_000}, (_, i) => put('checks', `chk_${i}`, checkRecord(i))))
    await symlink('/dev/full', join(dir, `journal.${String(2).padStart(12, '0')}.ndjson`))
    const compacting = store.compact()
    const pushed = store.commit([put('checks', 'chk_next', checkRecord(20_000))])
    await expect(pushed).rejects.toThrow(/ENOSPC/)
    await expect(compacting).rejects.toThrow(/ENOSPC/)
    await new Promise((resolve) => setImmediate(resolve))
    expect(store.failure?.message).toMatch(/ENOSPC/)
    expect(unhandled).toEqual([])
  })

  it('a delivery that falls due after the failure is not sent: its attempt could not be recorded, so it would be sent again and again', async () => {
    const receiver = await startReceiver()
    cleanup.push(() => receiver.close())
    const {url, dispatcher} = await serveOnFullDisk(async (store) => {
      const now = new Date().toISOString()
      const endpoint = createEndpoint('acct_demo', {url: receiver.url, event_types: ['check.created']}, now, false)
      const event = newEvent('acct_demo', 'check.created', {object: 'check'}, now)
      const {deliveries} = fanOut(event, [endpoint], Date.now() + 60_000)
      await store.commit([
        put('webhook_endpoints', endpoint.id, endpoint),
        put('events', event.id, event),
        ...deliveries.map((d) => put('deliveries', d.id, d)),
      ])
    })
    expect((await call(url, 'PUT', '/v1/checks/external/t1', {body: checkWith([['a', 1, 500]])})).status).toBe(503)
    expect(await dispatcher.advance(120)).toBe(0)
    expect(receiver.received).toHaveLength(0)
  })
  it('a stop whose compaction fails still lets go of the dir: a start in the same process opens it and reads every change', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    await seedStore(store, {seed: TEST_SEED})
    await store.commit([put('checks', 'chk_1', checkRecord(1))])
    // the checks document is written to its temp file first: on a full disk that write fails, and removes the file
    await symlink('/dev/full', join(dir, '.checks.json.tmp'))
    await expect(store.close()).rejects.toThrow(/ENOSPC/)
    const again = await Store.open({dir})
    cleanup.push(() => again.close())
    expect(again.tables.checks.get('chk_1')).toEqual(checkRecord(1))
  })
})

describe('when the data dir is removed while the server runs', () => {
  /** The seeded API over a store in a new dir, on a real port, its server's lines on stderr kept. */
  async function serveInDir() {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    cleanup.push(async () => logged.mockRestore())
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    cleanup.push(() => store.close().catch(() => {}))
    await seedStore(store, {seed: TEST_SEED})
    const {url, close} = await serveStorage(store)
    cleanup.push(close)
    const push = (id: string) => call(url, 'PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, 500]])})
    expect((await push('before')).status).toBe(201)
    const said = () => logged.mock.calls.map((args) => args.map(String).join(' '))
    return {dir, store, push, said}
  }

  it('the next push answers 503 saying the changes went with the dir, not 201 for a write no start reads', async () => {
    const {dir, push, said} = await serveInDir()
    await rm(dir, {recursive: true, force: true})
    const pushed = await push('after')
    expect(pushed.status).toBe(503)
    const {code, message} = (pushed.body as {error: {code: string; message: string}}).error
    expect(code).toBe('storage_unavailable')
    expect(message).toContain(`${dir} was removed while tablepay ran, and every change it held with it`)
    expect(message).toContain('To go on: restart `tablepay serve`.')
    expect(message).not.toMatch(/is kept|free space/)
    expect(said()).toEqual([expect.stringContaining(`(ENOENT). ${dir} was removed while tablepay ran`)])
    expect(said()[0]).not.toMatch(/is kept|free space/)
  })

  for (const pushFirst of [true, false]) {
    it(`a dir made again at its path is no data dir of it: ${pushFirst ? 'a push is 503, and ' : ''}a stop writes nothing into it`, async () => {
      const {dir, store, push, said} = await serveInDir()
      await rm(dir, {recursive: true, force: true})
      await mkdir(dir)
      if (pushFirst) expect((await push('after')).status).toBe(503)
      // the stop's compaction (none once a push failed) would open a segment and write documents: a data dir
      // without the seed's, which the next start refuses
      const closed = await store.close().then(
        () => 'closed',
        (error: Error) => error.message,
      )
      expect(closed).toEqual(pushFirst ? 'closed' : expect.stringContaining(`${dir} was removed while tablepay ran`))
      expect(await readdir(dir)).toEqual([])
      expect(said()).toEqual([expect.stringContaining(`(ENOENT). ${dir} was removed while tablepay ran`)])
    })
  }

  it('a compaction past its cut when the dir is made again writes no file into the new one', async () => {
    const {dir, store} = await serveInDir()
    // the removal comes between the compaction's cut and its documents
    const cut = Journal.prototype.cut
    vi.spyOn(Journal.prototype, 'cut').mockImplementationOnce(async function (this: Journal, firstSeq: number) {
      await cut.call(this, firstSeq)
      await rm(dir, {recursive: true, force: true})
      await mkdir(dir)
    })
    cleanup.push(async () => vi.mocked(Journal.prototype.cut).mockRestore())
    await expect(store.compact()).rejects.toThrow(`${dir} was removed while tablepay ran`)
    expect(await readdir(dir)).toEqual([])
  })

  it('a stop with nothing to compact still says that the dir went, and the changes with it', async () => {
    const {dir, store} = await serveInDir()
    await store.compact()
    await rm(dir, {recursive: true, force: true})
    await expect(store.close()).rejects.toThrow(`${dir} was removed while tablepay ran`)
  })

  it('a journal segment removed alone is named, and a start goes on without its changes', async () => {
    const {dir, store, push, said} = await serveInDir()
    // the documents hold the seed and the first push; the segment the compaction starts holds the next one
    await store.compact()
    expect((await push('between')).status).toBe(201)
    const segment = (await readdir(dir))
      .filter((name) => name.startsWith('journal.'))
      .sort()
      .at(-1)!
    await rm(join(dir, segment))
    expect((await push('after')).status).toBe(503)
    expect(said()).toEqual([
      expect.stringContaining(`${join(dir, segment)} was removed while tablepay ran, and every change it held with it`),
    ])
    await store.close().catch(() => {})
    const again = await Store.open({dir})
    cleanup.push(() => again.close())
    const {url} = await serveStorage(again).then((served) => (cleanup.push(served.close), served))
    const read = async (id: string) => (await call(url, 'GET', `/v1/checks/external/${id}`, {key: READ_KEY})).status
    expect([await read('before'), await read('between'), await read('after')]).toEqual([200, 404, 404])
  })
})
