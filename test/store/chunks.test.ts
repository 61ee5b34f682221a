import {cp, mkdir, readdir, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import type {DeliveryRecord, EventRecord} from '../../src/domain/records.js'
import {type Change, put, Store} from '../../src/store/store.js'
import {Unread} from '../../src/store/unread.js'
import {makeTempDir} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** Small chunks, so that a few dozen events span several. */
const CHUNK = 10

const event = (i: number, account = 'acct_1'): EventRecord => ({
  id: `evt_${String(i).padStart(4, '0')}`,
  object: 'event',
  type: 'check.created',
  created_at: '2026-01-01T00:00:00.000Z',
  data: {object: 'check', id: `chk_${i}`},
  account_id: account,
})

const range = (from: number, to: number) => Array.from({length: to - from}, (_, i) => from + i)

async function openStore(dir: string, options: {repair?: boolean; fsync?: boolean} = {}) {
  const store = await Store.open({dir, chunkSize: CHUNK, ...options})
  cleanup.push(() => store.close())
  return store
}

/** Closes the store opened last (a clean stop compacts), so the next can take the dir. */
const closeLast = () => cleanup.pop()!()

const addEvents = (store: Store, numbers: number[]) =>
  store.commit(numbers.map((i) => put('events', event(i).id, event(i))))
const deleteEvents = (store: Store, numbers: number[]) =>
  store.commit(numbers.map((i): Change => ['events', event(i).id, null]))

const chunkFiles = async (dir: string) => (await readdir(dir)).filter((f) => /^events\.\d+\.\d+\.json$/.test(f)).sort()

/** The account's event ids in the order the store keeps them (listing order). */
const eventIds = (store: Store, account = 'acct_1') => store.tables.events.idsOf(account)

const manifest = async (dir: string) =>
  JSON.parse(await readFile(join(dir, 'events.json'), 'utf8')) as {seq: number; records: {chunk: number}[]}

describe('events in chunks', () => {
  it('a restart reads back every event, in order, after several compactions with deletes between them', async () => {
    const dir = await makeTempDir()
    let store = await openStore(dir)
    await addEvents(store, range(0, 15))
    await store.compact()
    await addEvents(store, range(15, 32))
    await deleteEvents(store, [0, 1, 2, 20])
    await store.compact()
    await store.commit([put('events', event(100, 'acct_2').id, event(100, 'acct_2'))])
    await addEvents(store, range(32, 41))
    await store.compact()
    await addEvents(store, range(41, 45))
    await closeLast()
    const expected = range(3, 45)
      .filter((i) => i !== 20)
      .map((i) => event(i).id)
    store = await openStore(dir)
    expect(eventIds(store)).toEqual(expected)
    expect(eventIds(store, 'acct_2')).toEqual([event(100).id])
    expect(store.tables.events.get(event(44).id)).toEqual(event(44))
    // and again, after the events added since the restart went into the chunks that had room
    await addEvents(store, range(45, 60))
    await closeLast()
    store = await openStore(dir)
    expect(eventIds(store)).toEqual([...expected, ...range(45, 60).map((i) => event(i).id)])
    expect((await manifest(dir)).records.map((e) => e.chunk)).toEqual([0, 1, 2, 3, 4, 5, 6])
  })

  it('a compaction rewrites only the chunks that changed, and leaves the other files untouched', async () => {
    const dir = await makeTempDir()
    // with --fsync, through the path that syncs the chunks before the manifest
    const store = await openStore(dir, {fsync: true})
    await addEvents(store, range(0, 25))
    await store.compact()
    const before = await chunkFiles(dir)
    expect(before).toHaveLength(3)
    const look = async (file: string) => {
      const s = await stat(join(dir, file))
      return {ino: s.ino, mtimeMs: s.mtimeMs, text: await readFile(join(dir, file), 'utf8')}
    }
    const untouched = await Promise.all(before.slice(0, 2).map(look))
    await addEvents(store, range(25, 28))
    await store.compact()
    const after = await chunkFiles(dir)
    expect(after.slice(0, 2)).toEqual(before.slice(0, 2))
    expect(await Promise.all(after.slice(0, 2).map(look))).toEqual(untouched)
    // the last chunk got a new file; the one it replaced is gone
    expect(after).toHaveLength(3)
    expect(after[2]).not.toBe(before[2])
    expect(await readFile(join(dir, after[2]!), 'utf8')).toContain(event(27).id)
  })

  it('an events.json of the earlier layout, holding the events, is read and rewritten as chunks', async () => {
    const dir = await makeTempDir()
    const lines = range(0, 23).map((i) => `    ${JSON.stringify(event(i))}`)
    await writeFile(join(dir, 'events.json'), `{\n  "seq": 0,\n  "records": [\n${lines.join(',\n')}\n  ]\n}\n`)
    let store = await openStore(dir)
    const ids = range(0, 23).map((i) => event(i).id)
    expect(eventIds(store)).toEqual(ids)
    expect(await chunkFiles(dir)).toHaveLength(3)
    expect((await manifest(dir)).records).toEqual([
      {chunk: 0, version: 1, size: CHUNK, count: 9, crc: expect.any(Number)},
      {chunk: 1, version: 1, size: CHUNK, count: 10, crc: expect.any(Number)},
      {chunk: 2, version: 1, size: CHUNK, count: 4, crc: expect.any(Number)},
    ])
    await closeLast()
    store = await openStore(dir)
    expect(eventIds(store)).toEqual(ids)
  })

  it('retention deleting the oldest events removes the chunk files they emptied', async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    await addEvents(store, range(0, 35))
    await store.compact()
    const [first, second, ...rest] = await chunkFiles(dir)
    // chunk 0 holds places 1-9, chunk 1 places 10-19: events 0-8, then 9-18
    await deleteEvents(store, range(0, 19))
    await store.compact()
    const files = await chunkFiles(dir)
    expect(files).not.toContain(first)
    expect(files).not.toContain(second)
    expect(files).toEqual(rest)
    expect((await manifest(dir)).records.map((e) => e.chunk)).toEqual([2, 3])
    await deleteEvents(store, range(19, 35))
    await store.compact()
    expect(await chunkFiles(dir)).toEqual([])
    expect((await manifest(dir)).records).toEqual([])
  })

  it('a compaction killed after writing chunks, before its manifest, loses nothing: the journal is still there', async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    await addEvents(store, range(0, 15))
    await store.compact()
    await addEvents(store, range(15, 30))
    await deleteEvents(store, [3])
    // the manifest's temp file cannot be made: the chunks are written, the manifest is not
    await mkdir(join(dir, '.events.json.tmp'))
    await expect(store.compact()).rejects.toThrow()
    expect((await chunkFiles(dir)).length).toBeGreaterThan(2)
    const killed = await makeTempDir()
    await cp(dir, killed, {recursive: true, filter: (source) => !source.endsWith('.lock')})
    await rm(join(killed, '.events.json.tmp'), {recursive: true})
    const listed = (await manifest(killed)).records.length

    const restarted = await openStore(killed)
    const expected = range(0, 30)
      .filter((i) => i !== 3)
      .map((i) => event(i).id)
    expect(eventIds(restarted)).toEqual(expected)
    expect(listed).toBe(2)
    // the unlisted chunk files of the killed compaction are gone, the new manifest lists every file left
    const files = await chunkFiles(killed)
    expect(files).toHaveLength((await manifest(killed)).records.length)
    // the store that failed compacts once it can
    await rm(join(dir, '.events.json.tmp'), {recursive: true})
    await store.compact()
    expect(await chunkFiles(dir)).toHaveLength((await manifest(dir)).records.length)
    await closeLast()
    await closeLast()
    expect(eventIds(await openStore(dir))).toEqual(expected)
  })

  it('a chunk file no manifest lists (a killed compaction or migration left it) is not read, and is removed', async () => {
    const dir = await makeTempDir()
    await addEvents(await openStore(dir), range(0, 5))
    await closeLast()
    await writeFile(join(dir, 'events.000007.3.json'), '{\n  "seq": 9,\n  "records": []\n}\n')
    expect(eventIds(await openStore(dir))).toEqual(range(0, 5).map((i) => event(i).id))
    expect(await chunkFiles(dir)).toEqual(['events.000000.1.json'])
  })
})

describe('a damaged chunk', () => {
  /** A closed data dir with events 0-24 in chunks 0-2, and its chunk files. */
  async function chunkedDataDir(): Promise<{dir: string; files: string[]}> {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    await addEvents(store, range(0, 25))
    await closeLast()
    return {dir, files: await chunkFiles(dir)}
  }

  it('a chunk the manifest lists that is missing refuses the start, naming it; --repair starts with the rest', async () => {
    const {dir, files} = await chunkedDataDir()
    const path = join(dir, files[1]!)
    await rm(path)
    await expect(Store.open({dir, chunkSize: CHUNK})).rejects.toThrow(
      `store: ${path} is missing: events.json lists it, with 10 records. Nothing was changed.`,
    )
    const repaired = await openStore(dir, {repair: true})
    const kept = [...range(0, 9), ...range(19, 25)].map((i) => event(i).id)
    expect(eventIds(repaired)).toEqual(kept)
    await closeLast()
    expect(eventIds(await openStore(dir))).toEqual(kept)
  })

  it('a chunk whose record was edited refuses the start; --repair keeps the records that read', async () => {
    const {dir, files} = await chunkedDataDir()
    const path = join(dir, files[0]!)
    await writeFile(path, (await readFile(path, 'utf8')).replace('"chk_4"', '"chk_400"'))
    await expect(Store.open({dir, chunkSize: CHUNK})).rejects.toThrow(
      `store: ${path} is corrupt: its records do not match its checksum`,
    )
    await writeFile(path, (await readFile(path, 'utf8')).replace('"chk_400"', '"chk_4'))
    const repaired = await openStore(dir, {repair: true})
    expect(eventIds(repaired)).toEqual(
      range(0, 25)
        .filter((i) => i !== 4)
        .map((i) => event(i).id),
    )
  })

  it('a chunk replaced by another whole file (its own checksum fine) does not match the manifest and is refused', async () => {
    const {dir, files} = await chunkedDataDir()
    // the last chunk's file is swapped for the first one's: each reads, neither is what events.json lists
    await cp(join(dir, files[0]!), join(dir, files[2]!))
    await expect(Store.open({dir, chunkSize: CHUNK})).rejects.toThrow(
      `store: ${join(dir, files[2]!)} is corrupt: it holds 9 records, not the 6 that events.json lists`,
    )
  })

  it('a deleted events.json, its chunks still there, refuses the start; --repair reads the chunks', async () => {
    const {dir} = await chunkedDataDir()
    await rm(join(dir, 'events.json'))
    await expect(Store.open({dir, chunkSize: CHUNK})).rejects.toThrow(
      `store: ${join(dir, 'events.json')} is missing, while files of its chunks are there`,
    )
    expect(eventIds(await openStore(dir, {repair: true}))).toEqual(range(0, 25).map((i) => event(i).id))
  })

  it("a torn entry of events.json refuses the start; --repair reads that entry's chunk from its own file and keeps it", async () => {
    const {dir, files} = await chunkedDataDir()
    const path = join(dir, 'events.json')
    const text = await readFile(path, 'utf8')
    const entry = text.split('\n').find((line) => line.includes('"chunk":1,'))!
    await writeFile(path, text.replace(entry, entry.slice(0, 12)))
    await expect(Store.open({dir, chunkSize: CHUNK})).rejects.toThrow(`store: ${path} line`)
    expect(eventIds(await openStore(dir, {repair: true}))).toEqual(range(0, 25).map((i) => event(i).id))
    await closeLast()
    // and the rewritten manifest lists it again: the next start needs no repair
    expect(eventIds(await openStore(dir))).toEqual(range(0, 25).map((i) => event(i).id))
    expect((await chunkFiles(dir)).length).toBe(files.length)
  })

  it('the journal waits for twice the plain documents, but not for twice the chunks: past its cap a compaction starts', async () => {
    const grow = async (chunkedJournalBytes: number) => {
      const dir = await makeTempDir()
      const store = await Store.open({dir, chunkSize: CHUNK, compactAfterBytes: 1, chunkedJournalBytes})
      cleanup.push(() => store.close())
      // chunks far larger than the cap: twice their size would let 60 KB of journal grow
      await addEvents(store, range(0, 200))
      await store.compact()
      const before = store.compactions
      for (const i of range(200, 240)) await addEvents(store, [i])
      return store.compactions - before
    }
    expect(await grow(4000)).toBeGreaterThan(0)
    expect(await grow(Number.POSITIVE_INFINITY)).toBe(0)
  })
})

describe('deliveries in chunks', () => {
  const delivery = (i: number, status: DeliveryRecord['status'] = 'pending'): DeliveryRecord => ({
    id: `dlv_${String(i).padStart(4, '0')}`,
    object: 'delivery',
    endpoint_id: 'we_1',
    event_id: event(i).id,
    event_type: 'check.created',
    status,
    attempts: [],
    next_attempt_at: status === 'pending' ? '2026-01-01T00:00:00.000Z' : null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    account_id: 'acct_1',
  })
  const deliveryFiles = async (dir: string) =>
    (await readdir(dir)).filter((f) => /^deliveries\.\d+\.\d+\.json$/.test(f)).sort()

  it('a delivery that changes rewrites only its own chunk, and a restart reads back each one as it was last stored', async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    await store.commit(range(0, 25).map((i) => put('deliveries', delivery(i).id, delivery(i))))
    await store.compact()
    const before = await deliveryFiles(dir)
    expect(before).toHaveLength(3)
    const texts = await Promise.all(before.map((f) => readFile(join(dir, f), 'utf8')))
    // a pending delivery of the newest chunk succeeds: the two older chunks stay as they are
    await store.commit([put('deliveries', delivery(22).id, delivery(22, 'succeeded'))])
    await store.compact()
    const after = await deliveryFiles(dir)
    expect(after.slice(0, 2)).toEqual(before.slice(0, 2))
    expect(await Promise.all(after.slice(0, 2).map((f) => readFile(join(dir, f), 'utf8')))).toEqual(texts.slice(0, 2))
    expect(after[2]).not.toBe(before[2])
    await closeLast()
    const again = await openStore(dir)
    expect(again.tables.deliveries.idsOf('acct_1')).toEqual(range(0, 25).map((i) => delivery(i).id))
    expect(again.tables.deliveries.get(delivery(22).id)?.status).toBe('succeeded')
    expect(again.tables.deliveries.get(delivery(21).id)?.status).toBe('pending')
  })

  it("a restart keeps deliveries unparsed: the pending ones are found, and an event's, without parsing the others", async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    const status = (i: number) => (i % 10 === 3 ? 'pending' : i % 10 === 7 ? 'dead' : 'succeeded')
    await store.commit(range(0, 25).map((i) => put('deliveries', delivery(i).id, delivery(i, status(i)))))
    await closeLast()
    const read = vi.spyOn(Unread.prototype, 'read')
    try {
      const again = await openStore(dir)
      const deliveries = again.tables.deliveries
      expect(read).not.toHaveBeenCalled()
      expect([...deliveries.all({status: 'pending'})].map((d) => d.id)).toEqual([3, 13, 23].map((i) => delivery(i).id))
      expect(read).toHaveBeenCalledTimes(3)
      // retention finds an event's deliveries by their group, and deletes them unparsed
      expect(deliveries.groupIds(event(7).id)).toEqual([delivery(7).id])
      deliveries.delete(delivery(7).id)
      expect(deliveries.groupIds(event(7).id)).toEqual([])
      expect(read).toHaveBeenCalledTimes(3)
      expect(deliveries.get(delivery(17).id)).toEqual(delivery(17, 'dead'))
    } finally {
      read.mockRestore()
    }
  })

  it("a compaction that fails after the events' chunks leaves none of their replaced files once a later one succeeds", async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    await addEvents(store, range(0, 5))
    await store.commit([put('deliveries', delivery(0).id, delivery(0))])
    await store.compact()
    expect(await chunkFiles(dir)).toEqual(['events.000000.1.json'])
    // the deliveries' next chunk file cannot be made: a directory holds its name
    await mkdir(join(dir, 'deliveries.000000.2.json', 'in-the-way'), {recursive: true})
    await addEvents(store, [5])
    await store.commit([put('deliveries', delivery(0).id, delivery(0, 'succeeded'))])
    await expect(store.compact()).rejects.toThrow()
    expect(await chunkFiles(dir)).toEqual(['events.000000.1.json', 'events.000000.2.json'])
    await rm(join(dir, 'deliveries.000000.2.json'), {recursive: true})
    // it writes the chunk again, and deletes both files it had before
    await store.compact()
    expect(await chunkFiles(dir)).toEqual(['events.000000.3.json'])
    expect(await deliveryFiles(dir)).toEqual(['deliveries.000000.3.json'])
  })

  it('a deliveries.json of the earlier layout, one document of all of them, is read and rewritten as chunks', async () => {
    const dir = await makeTempDir()
    const lines = range(0, 23).map((i) => `    ${JSON.stringify(delivery(i))}`)
    await writeFile(join(dir, 'deliveries.json'), `{\n  "seq": 0,\n  "records": [\n${lines.join(',\n')}\n  ]\n}\n`)
    const store = await openStore(dir)
    expect(store.tables.deliveries.idsOf('acct_1')).toEqual(range(0, 23).map((i) => delivery(i).id))
    expect(await deliveryFiles(dir)).toHaveLength(3)
    await closeLast()
    expect((await openStore(dir)).tables.deliveries.size).toBe(23)
  })
})

describe("a compaction copies the journal's bytes of the events it writes into chunks", () => {
  /** Events whose JSON has characters of more than one byte, so a span counted in characters would be off. */
  const spelled = (i: number): EventRecord => ({
    ...event(i),
    data: {object: 'check', id: `chk_${i}`, name: `Crème brûlée ${'é'.repeat(i)}`},
  })

  /** The events of `events` that a compaction of `store` serializes (the others it copies from the journal). */
  async function serializedBy(store: Store, events: EventRecord[]): Promise<unknown[]> {
    const stringify = vi.spyOn(JSON, 'stringify')
    try {
      await store.compact()
      return stringify.mock.calls.map(([value]) => value).filter((value) => events.includes(value as EventRecord))
    } finally {
      stringify.mockRestore()
    }
  }

  /** The events a start on `dir` reads back, once the store opened last is closed. */
  async function reopenedEvents(dir: string) {
    await closeLast()
    const reopened = await openStore(dir)
    return eventIds(reopened).map((id) => reopened.tables.events.get(id))
  }

  for (const fsync of [false, true]) {
    it(`serializes none of the events its lines hold again, and writes each as JSON.stringify does${fsync ? ' (--fsync)' : ''}`, async () => {
      const dir = await makeTempDir()
      const store = await openStore(dir, {fsync})
      const events = range(0, 25).map(spelled)
      // lines of one write and of several, with other changes around the events, and lines without events between them
      const setting = (id: string) => put('settings', id, {id, account_id: 'acct_1', value: 'ü'} as never)
      await Promise.all(
        range(0, 5).flatMap((i) => [
          store.commit([setting(`plain_${i}`)]),
          store.commit([setting(`s_${i}`), put('events', events[i]!.id, events[i]!)]),
        ]),
      )
      for (const pair of [range(5, 7), range(7, 9), range(9, 11), range(11, 13)])
        await store.commit(pair.map((i) => put('events', events[i]!.id, events[i]!)))
      // a run of alike events: the journal's short form holds no event's JSON as it is
      const run = events.slice(13)
      await store.commit(run.map((e) => put('events', e.id, e)))
      expect(await serializedBy(store, events)).toEqual(run)
      const lines: string[] = []
      for (const file of await chunkFiles(dir)) {
        const text = await readFile(join(dir, file), 'utf8')
        lines.push(
          ...text
            .split('\n')
            .filter((line) => line.startsWith('    '))
            .map((line) => line.trim().replace(/,$/, '')),
        )
      }
      expect(lines).toEqual(events.map((e) => JSON.stringify(e)))
      expect(await reopenedEvents(dir)).toEqual(events)
    })
  }

  it('copies events that fill more than the 1 MiB the journal is read by at once, each as it was', async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    // 300 KB each: a few to a window, and the compaction's slice of records crosses windows
    const events = range(0, 12).map((i): EventRecord => ({
      ...spelled(i),
      data: {id: `chk_${i}`, note: `${i}`.repeat(300_000)},
    }))
    for (const e of events) await store.commit([put('events', e.id, e)])
    expect(await serializedBy(store, events)).toEqual([])
    expect(await reopenedEvents(dir)).toEqual(events)
  })

  it("serializes an event whose JSON does not begin with its id: the copy's check cannot vouch for its bytes", async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    const {id, ...rest} = spelled(1)
    const idLater = {...rest, id} as EventRecord
    const events = [spelled(0), idLater]
    for (const e of events) await store.commit([put('events', e.id, e)])
    expect(await serializedBy(store, events)).toEqual([idLater])
    expect(await reopenedEvents(dir)).toEqual(events)
  })

  it('copies events from every segment the journal went on in since the last compaction', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir, chunkSize: CHUNK, segmentBytes: 1024})
    cleanup.push(() => store.close())
    const events = range(0, 20).map(spelled)
    // a few lines a segment; those committed together share a write that a segment's end cuts
    await Promise.all(events.slice(0, 10).map((e) => store.commit([put('events', e.id, e)])))
    for (const e of events.slice(10)) await store.commit([put('events', e.id, e)])
    expect((await readdir(dir)).filter((f) => f.startsWith('journal.')).length).toBeGreaterThan(2)
    expect(await serializedBy(store, events)).toEqual([])
    expect(await reopenedEvents(dir)).toEqual(events)
  })

  it('serializes the events a start read from the journal, which holds no span for them, to the same bytes', async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    const events = range(0, 12).map(spelled)
    await store.commit(events.map((e) => put('events', e.id, e)))
    const killed = await makeTempDir()
    await cp(dir, killed, {recursive: true, filter: (source) => !source.endsWith('.lock')})
    await store.compact()
    const copied = await Promise.all((await chunkFiles(dir)).map((f) => readFile(join(dir, f), 'utf8')))
    const replayed = await openStore(killed)
    await replayed.compact()
    const serialized = await Promise.all((await chunkFiles(killed)).map((f) => readFile(join(killed, f), 'utf8')))
    // the same chunks, record for record; only the seq in the header may differ
    const records = (texts: string[]) => texts.map((text) => text.split('\n').slice(2).join('\n'))
    expect(records(serialized)).toEqual(records(copied))
  })
})

describe('events a start reads stay text until asked for', () => {
  /** How many events `Unread.read` parses while `act` runs. */
  async function parsedDuring(act: () => Promise<unknown> | unknown): Promise<number> {
    const read = vi.spyOn(Unread.prototype, 'read')
    try {
      await act()
      return read.mock.calls.length
    } finally {
      read.mockRestore()
    }
  }

  it('parses none at the start, then each one once, when asked for, into the event that was stored', async () => {
    const dir = await makeTempDir()
    await addEvents(await openStore(dir), range(0, 25))
    await closeLast()
    let store: Store | undefined
    expect(await parsedDuring(async () => (store = await openStore(dir)))).toBe(0)
    const events = store!.tables.events
    expect(await parsedDuring(() => events.get(event(3).id))).toBe(1)
    expect(await parsedDuring(() => events.get(event(3).id))).toBe(0)
    expect(events.get(event(3).id)).toEqual(event(3))
    // a page walked from a cursor parses the events it yields, and no others
    const firstTwo = () => {
      const walked = events.walk('acct_1', {after: event(10).id, oldestFirst: true})![Symbol.iterator]()
      return [walked.next().value, walked.next().value]
    }
    expect(await parsedDuring(firstTwo)).toBe(2)
    expect(firstTwo()).toEqual([event(11), event(12)])
    // ids alone, as retention deleting the oldest walks them, parse nothing
    expect(await parsedDuring(() => [...events.walkIds('acct_1', {oldestFirst: true})!])).toBe(0)
    expect([...events.walkIds('acct_1', {after: event(20).id})!]).toEqual(
      range(0, 20)
        .reverse()
        .map((i) => event(i).id),
    )
    expect([...events.walk('acct_1', {after: event(20).id})!]).toEqual(
      range(0, 20)
        .reverse()
        .map((i) => event(i)),
    )
  })

  it('deletes one unread, and a compaction writes the unread events of its chunk as they were, serializing none', async () => {
    const dir = await makeTempDir()
    await addEvents(await openStore(dir), range(0, 25))
    await closeLast()
    const before = await readFile(join(dir, (await chunkFiles(dir))[0]!), 'utf8')
    const store = await openStore(dir)
    const stringify = vi.spyOn(JSON, 'stringify')
    try {
      expect(await parsedDuring(() => deleteEvents(store, [4]))).toBe(0)
      await store.compact()
      expect(stringify.mock.calls.filter(([value]) => (value as {object?: string})?.object === 'event')).toEqual([])
    } finally {
      stringify.mockRestore()
    }
    const after = await readFile(join(dir, (await chunkFiles(dir))[0]!), 'utf8')
    const recordsOf = (text: string) => text.split('\n').filter((line) => line.startsWith('    '))
    expect(recordsOf(after).map((line) => line.replace(/,$/, ''))).toEqual(
      recordsOf(before)
        .filter((line) => !line.includes(event(4).id))
        .map((line) => line.replace(/,$/, '')),
    )
    expect(eventIds(store)).toEqual(
      range(0, 25)
        .filter((i) => i !== 4)
        .map((i) => event(i).id),
    )
    await closeLast()
    const reopened = await openStore(dir)
    expect(eventIds(reopened).map((id) => reopened.tables.events.get(id))).toEqual(
      range(0, 25)
        .filter((i) => i !== 4)
        .map((i) => event(i)),
    )
  })

  it('parses the events of a chunk its manifest does not vouch for at the start, so --repair drops what does not read', async () => {
    const dir = await makeTempDir()
    await addEvents(await openStore(dir), range(0, 25))
    await closeLast()
    const path = join(dir, (await chunkFiles(dir))[1]!)
    // still JSON, but not the bytes the manifest's checksum was taken of, and a record cut short
    const text = await readFile(path, 'utf8')
    await writeFile(
      path,
      text.replace('"chk_12"', '"chk_1200"').replace(`{"id":"${event(15).id}"`, `{"id":"${event(15).id}`),
    )
    let store: Store | undefined
    expect(await parsedDuring(async () => (store = await openStore(dir, {repair: true})))).toBe(0)
    expect(eventIds(store!)).toEqual(
      range(0, 25)
        .filter((i) => i !== 15)
        .map((i) => event(i).id),
    )
    // parsed at the start: nothing left to parse, and the edit read as it is now
    expect(await parsedDuring(() => store!.tables.events.get(event(12).id))).toBe(0)
    expect(store!.tables.events.get(event(12).id)).toEqual({...event(12), data: {object: 'check', id: 'chk_1200'}})
  })

  it('parses at the start an event its text does not name the id and account of, first and last', async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    const {account_id, ...rest} = event(1)
    const accountFirst = {account_id, ...rest} as EventRecord
    const quoted = {...event(2), id: 'evt_"2"'}
    await store.commit([event(0), accountFirst, quoted].map((e) => put('events', e.id, e)))
    await closeLast()
    let reopened: Store | undefined
    expect(await parsedDuring(async () => (reopened = await openStore(dir)))).toBe(0)
    const events = reopened!.tables.events
    expect(await parsedDuring(() => [events.get(accountFirst.id), events.get(quoted.id)])).toBe(0)
    expect([events.get(accountFirst.id), events.get(quoted.id)]).toEqual([accountFirst, quoted])
    expect(await parsedDuring(() => events.get(event(0).id))).toBe(1)
  })
})
