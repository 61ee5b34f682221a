import {copyFile, cp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {type RunningServer, startServer} from '../../src/server/start.js'
import {put, Store} from '../../src/store/store.js'
import {checkRecord, checkWith} from '../helpers/checks.js'
import {call, makeTempDir, writeSeed} from '../helpers/simulator.js'

/**
 * A document of the data dir put back from an older copy, or swapped for
 * another, refuses the start as other damage does, and --repair starts with
 * what is intact (docs/storage.md, "Integrity checks"). Real servers on real
 * data dirs, stopped cleanly between the steps.
 */

const running: {close(): Promise<void>}[] = []
afterEach(async () => {
  while (running.length > 0) await running.pop()!.close()
})

async function dataDir(): Promise<{dir: string; start: (repair?: boolean) => Promise<RunningServer>}> {
  const root = await makeTempDir()
  const dir = join(root, 'data')
  const seedFile = await writeSeed(root)
  const start = async (repair = false) => {
    const server = await startServer({port: 0, host: '127.0.0.1', dataDir: dir, seedFile, repair})
    running.push(server)
    return server
  }
  return {dir, start}
}

/** Stops the server cleanly: its documents are written and the journal it held is dropped. */
async function stop(server: RunningServer): Promise<void> {
  running.splice(running.indexOf(server), 1)
  await server.close()
}

async function push(server: RunningServer, version: number): Promise<{id: string}> {
  const body = checkWith([['a', version, 100]], {version})
  const answer = await call(server.url, 'PUT', '/v1/checks/external/t12', {body})
  expect(answer.status).toBeLessThan(300)
  return answer.body as {id: string}
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The store's refusal of damage: the file, what is wrong with it, and the remedies. */
const refusal = (path: string, problem: string) =>
  expect.objectContaining({
    code: 'data_damaged',
    message: expect.stringMatching(
      new RegExp(`^store: ${escaped(path)} ${escaped(problem)}.*\\. Nothing was changed\\. .*--repair`),
    ),
  })

/** Every file of the dir with its content: a refused start must change none of them. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const names = (await readdir(dir)).filter((f) => !f.endsWith('.lock')).sort()
  return Object.fromEntries(await Promise.all(names.map(async (f) => [f, await readFile(join(dir, f), 'utf8')])))
}

/** What --repair dropped, as its side file in `dir` gives it. */
async function repairReport(dir: string): Promise<{file: string; problem: string}[]> {
  const [side] = (await readdir(dir)).filter((f) => f.startsWith('repair-'))
  const text = await readFile(join(dir, side!), 'utf8')
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
}

describe('a document put back from an older copy', () => {
  /** checks.json copied after version 1 of check t12, put back after version 2 was acknowledged and stored. */
  async function checksPutBack() {
    const data = await dataDir()
    const first = await data.start()
    await push(first, 1)
    await stop(first)
    const old = join(await makeTempDir(), 'checks.json')
    await copyFile(join(data.dir, 'checks.json'), old)
    const second = await data.start()
    await push(second, 2)
    await stop(second)
    await copyFile(old, join(data.dir, 'checks.json'))
    return data
  }

  it('checks.json copied before version 2 was pushed and put back after refuses the start, changing nothing', async () => {
    const {dir, start} = await checksPutBack()
    const before = await snapshot(dir)
    await expect(start()).rejects.toEqual(refusal(join(dir, 'checks.json'), 'is older than the rest of the data dir'))
    expect(await snapshot(dir)).toEqual(before)
  })

  it('with --repair, starts on what the old copy holds, reports it, and the next start needs no --repair', async () => {
    const {dir, start} = await checksPutBack()
    const repaired = await start(true)
    const answer = await call(repaired.url, 'GET', '/v1/checks/external/t12')
    expect([answer.status, answer.body.version]).toEqual([200, 1])
    expect(await repairReport(dir)).toEqual([
      expect.objectContaining({file: join(dir, 'checks.json'), problem: expect.stringContaining('older copy')}),
    ])
    await push(repaired, 3)
    await stop(repaired)
    const again = await start()
    expect((await call(again.url, 'GET', '/v1/checks/external/t12')).body.version).toBe(3)
  })
})

describe('a document swapped for another', () => {
  /** A data dir with a claim and a payment of check t12, stopped, whose payments.json is then a copy of claims.json. */
  async function paymentsSwapped() {
    const data = await dataDir()
    const server = await data.start()
    const check = await push(server, 1)
    const claim = {items: [{external_id: 'a', quantity: 1}]}
    expect((await call(server.url, 'POST', `/v1/sim/checks/${check.id}/claims`, {body: claim})).status).toBe(201)
    const paid = await call(server.url, 'POST', `/v1/sim/checks/${check.id}/payments`, {body: {amount_cents: 50}})
    expect(paid.status).toBe(201)
    await stop(server)
    await copyFile(join(data.dir, 'claims.json'), join(data.dir, 'payments.json'))
    return {...data, check}
  }

  it('payments.json replaced by a copy of claims.json refuses the start, naming both collections', async () => {
    const {dir, start} = await paymentsSwapped()
    const before = await snapshot(dir)
    await expect(start()).rejects.toEqual(
      refusal(join(dir, 'payments.json'), 'holds the claims collection, not payments'),
    )
    expect(await snapshot(dir)).toEqual(before)
  })

  it('with --repair, keeps none of the copy as payments, keeps the claims, and the next start needs no --repair', async () => {
    const {dir, start, check} = await paymentsSwapped()
    const repaired = await start(true)
    const payments = await call(repaired.url, 'GET', `/v1/checks/${check.id}/payments`)
    const claims = await call(repaired.url, 'GET', `/v1/checks/${check.id}/claims`)
    expect([payments.body.data, claims.body.data.length]).toEqual([[], 1])
    expect(await repairReport(dir)).toEqual([
      expect.objectContaining({file: join(dir, 'payments.json'), problem: expect.stringContaining('claims')}),
    ])
    await stop(repaired)
    await stop(await start())
  })
})

describe('a document replaced by an empty one', () => {
  it.each([
    ['the empty document of a new data dir', 'fresh'],
    ['an empty document in the layout of earlier versions', '{\n  "seq": 0,\n  "records": []\n}\n'],
  ])('idempotency_keys.json replaced by %s refuses the start', async (_, empty) => {
    const {dir, start} = await dataDir()
    if (empty === 'fresh') {
      const fresh = await dataDir()
      await stop(await fresh.start())
      empty = await readFile(join(fresh.dir, 'idempotency_keys.json'), 'utf8')
    }
    const server = await start()
    const check = await push(server, 1)
    const paid = await call(server.url, 'POST', `/v1/sim/checks/${check.id}/payments`, {
      body: {amount_cents: 50},
      headers: {'idempotency-key': 'pay-once'},
    })
    expect(paid.status).toBe(201)
    await stop(server)
    await writeFile(join(dir, 'idempotency_keys.json'), empty)
    await expect(start()).rejects.toEqual(
      refusal(join(dir, 'idempotency_keys.json'), 'is older than the rest of the data dir'),
    )
  })
})

describe('what a start still takes', () => {
  it('a data dir with documents and no journal yet starts', async () => {
    const {dir, start} = await dataDir()
    const server = await start()
    await push(server, 1)
    await stop(server)
    for (const f of (await readdir(dir)).filter((name) => name.startsWith('journal.'))) await rm(join(dir, f))
    const again = await start()
    expect((await call(again.url, 'GET', '/v1/checks/external/t12')).body.version).toBe(1)
  })

  /** Files of `dir` but the lock, by name, with their bytes. */
  async function filesOf(dir: string): Promise<Map<string, Buffer>> {
    const names = (await readdir(dir)).filter((f) => !f.endsWith('.lock'))
    return new Map(await Promise.all(names.map(async (f) => [f, await readFile(join(dir, f))] as const)))
  }

  async function openCopy(files: Map<string, Buffer>): Promise<Store> {
    const dir = await makeTempDir()
    for (const [name, bytes] of files) await writeFile(join(dir, name), bytes)
    const store = await Store.open({dir})
    running.push(store)
    return store
  }

  it('a compaction killed after any of its documents is renamed, or after its index, leaves a data dir that starts', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    running.push(store)
    await store.commit([put('checks', 'chk_1', checkRecord(1)), put('payments', 'pay_1', {id: 'pay_1'} as never)])
    await store.compact()
    await store.commit([
      put('checks', 'chk_1', {...checkRecord(1), version: 2}),
      put('claims', 'clm_1', {id: 'clm_1'} as never),
      put('idempotency_keys', 'idk_1', {id: 'idk_1'} as never),
      put('events', 'evt_1', {id: 'evt_1', account_id: 'acct_1'} as never),
    ])
    await store.settled()
    // what the compaction starts from, and what it writes: each document is a temp file renamed in place
    const before = await filesOf(dir)
    await store.compact()
    const after = await filesOf(dir)
    const renamed = ['checks.json', 'claims.json', 'idempotency_keys.json', 'events.json']
    const added = [...after.keys()].filter((name) => !before.has(name))
    expect(renamed.every((name) => !before.get(name)!.equals(after.get(name)!))).toBe(true)

    // any set of the documents renamed (in any order)
    for (let mask = 0; mask < 2 ** renamed.length; mask++) {
      const files = new Map(before)
      for (const [i, name] of renamed.entries()) if (mask & (1 << i)) files.set(name, after.get(name)!)
      // the chunk file comes before events.json, which names it; the segment the compaction cut to, at any time
      const eventsRenamed = (mask & (1 << renamed.indexOf('events.json'))) !== 0
      if (eventsRenamed || mask % 2 === 1) for (const name of added) files.set(name, after.get(name)!)
      const killed = await openCopy(files)
      const read = [killed.tables.checks.get('chk_1')?.version, killed.tables.idempotency_keys.size]
      expect([mask, ...read]).toEqual([mask, 2, 1])
    }
    // every document and the index renamed, the journal not dropped yet
    const killed = await openCopy(new Map([...before, ...after]))
    expect(killed.tables.claims.size).toBe(1)
  })

  it('a data dir written before documents named their collection and had an index starts, and is checked from then on', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    await store.commit([put('payments', 'pay_1', {id: 'pay_1'} as never)])
    await store.compact()
    await store.commit([put('checks', 'chk_1', checkRecord(1))])
    await store.close()
    // as an earlier version leaves it: payments.json at the seq it last changed, older than checks.json
    await rm(join(dir, 'documents.json'))
    for (const name of (await readdir(dir)).filter((f) => f.endsWith('.json'))) {
      const text = await readFile(join(dir, name), 'utf8')
      await writeFile(join(dir, name), text.replace(/^ {2}"collection": "[a-z_]+",\n/m, ''))
    }
    const seqOf = async (name: string) => JSON.parse(await readFile(join(dir, name), 'utf8')).seq as number
    expect(await seqOf('payments.json')).toBeLessThan(await seqOf('checks.json'))
    const old = await makeTempDir()
    await cp(dir, old, {recursive: true})

    const upgraded = await Store.open({dir})
    expect([upgraded.tables.payments.size, upgraded.tables.checks.size]).toEqual([1, 1])
    await upgraded.commit([put('payments', 'pay_2', {id: 'pay_2'} as never)])
    await upgraded.close()
    await copyFile(join(old, 'payments.json'), join(dir, 'payments.json'))
    await expect(Store.open({dir})).rejects.toThrow(`store: ${join(dir, 'payments.json')} is older than the rest`)
  })
})
