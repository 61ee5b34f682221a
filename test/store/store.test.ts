import {readdirSync, readlinkSync} from 'node:fs'
import {
  appendFile,
  chmod,
  type FileHandle,
  mkdir,
  open,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises'
import {join, relative} from 'node:path'
import {crc32} from 'node:zlib'
import {afterEach, describe, expect, it} from 'vitest'
import {startServer} from '../../src/server/start.js'
import {MemoryStorage} from '../../src/service/memory-storage.js'
import {put, Store} from '../../src/store/store.js'
import {Unread} from '../../src/store/unread.js'
import {checkRecord, checkWith} from '../helpers/checks.js'
import {snapshotOf, withoutRecords} from '../helpers/snapshots.js'
import {call, makeTempDir, startTestServer, type TestServer, writeSeed} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

const record = checkRecord

async function openStore(dir: string, options: {compactAfterBytes?: number; repair?: boolean} = {}) {
  const store = await Store.open({dir, ...options})
  cleanup.push(() => store.close())
  return store
}

const segments = async (dir: string) => (await readdir(dir)).filter((f) => f.startsWith('journal.'))

describe('Store', () => {
  it('keeps every committed change across a reopen, with or without compaction', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir, compactAfterBytes: 2000})
    await Promise.all(Array.from({length: 50}, (_, i) => store.commit([put('checks', `chk_${i}`, record(i))])))
    await store.commit([['checks', 'chk_7', null]])
    await store.close()
    const again = await openStore(dir)
    expect(again.tables.checks.size).toBe(49)
    expect(again.tables.checks.get('chk_7')).toBeUndefined()
    expect(again.tables.checks.get('chk_49')).toEqual(record(49))
    expect(again.tables.checks.getByAlternate('acct_1', 't3')?.id).toBe('chk_3')
    // the start's own compaction runs in the background
    await again.compact()
    expect(await segments(dir)).toHaveLength(1)
  })

  it('a clean stop during a compaction compacts the changes made after that compaction began too', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir, compactAfterBytes: 1e9})
    await store.commit([put('checks', 'chk_1', record(1))])
    const running = store.compact()
    await store.commit([put('checks', 'chk_2', record(2))])
    await store.close()
    await running
    const sizes = await Promise.all((await segments(dir)).map(async (name) => (await stat(join(dir, name))).size))
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(0)
    expect((await openStore(dir)).tables.checks.get('chk_2')).toEqual(record(2))
  })

  it('commits made while it closes are each either kept or refused as closed, never failed as a disk', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    const closing = store.close()
    const kept: number[] = []
    for (let i = 0; ; i++) {
      const committed = await store.commit([put('checks', `chk_${i}`, record(i))]).then(
        () => undefined,
        (error: Error) => error,
      )
      if (committed) {
        expect(committed.message).toBe(`store: ${dir} is closed; open it again to write to it.`)
        break
      }
      kept.push(i)
    }
    await closing
    expect([...(await openStore(dir)).tables.checks.all()].map((check) => check.id)).toEqual(
      kept.map((i) => `chk_${i}`),
    )
  })

  it('refuses a commit after close, which could no longer be written, and keeps it out of memory', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    await store.commit([put('checks', 'chk_1', record(1))])
    await store.close()
    await expect(store.commit([put('checks', 'chk_2', record(2))])).rejects.toThrow(`store: ${dir} is closed`)
    expect(store.tables.checks.get('chk_2')).toBeUndefined()
    expect((await openStore(dir)).tables.checks.size).toBe(1)
  })

  it('changes nothing, in memory or in the journal, for a commit that cannot be written', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    await store.commit([put('checks', 'chk_1', record(1))])
    // as a record whose JSON is past V8's longest string: JSON.stringify throws while the line is written
    const unwritable = {...record(2), version: 10n} as unknown as ReturnType<typeof record>
    expect(() => store.commit([put('checks', 'chk_1', record(3)), put('checks', 'chk_2', unwritable)])).toThrow(
      /BigInt/,
    )
    expect([store.tables.checks.get('chk_1'), store.tables.checks.get('chk_2')]).toEqual([record(1), undefined])
    await store.commit([put('checks', 'chk_4', record(4))])
    await store.close()
    // no seq was taken by it: the journal reads on without a gap
    const again = await openStore(dir)
    expect([again.tables.checks.size, again.tables.checks.get('chk_1'), again.tables.checks.get('chk_4')]).toEqual([
      2,
      record(1),
      record(4),
    ])
  })

  it('writes commits whose lines together pass the longest string V8 makes, and goes on', async () => {
    const dir = await makeTempDir()
    // no compaction between them: one cuts the journal, as on a data dir of large documents it would not yet
    const store = await Store.open({dir, compactAfterBytes: 2 ** 31})
    cleanup.push(() => store.close())
    // lines of 60 and 480 million characters, made in one turn so that one write would take both: 540 million,
    // where V8's longest string is 536,870,888 (a line past the journal's segment size is written last in its
    // segment, so a write joins a near-longest line only to the lines of under 64 MiB before it)
    const large = (i: number, length: number) => ({...record(i), note: 'x'.repeat(length)})
    const lengths = [60_000_000, 480_000_000]
    await Promise.all(lengths.map((length, i) => store.commit([put('checks', `chk_${i}`, large(i, length))])))
    await store.commit([put('checks', 'chk_3', record(3))])
    expect(store.failure).toBeUndefined()
    const sizes = await Promise.all((await segments(dir)).map(async (name) => (await stat(join(dir, name))).size))
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeGreaterThan(540_000_000)
    // writes 540 MB: 50–57 s in loaded runs, past a minute in another
  }, 180_000)

  it('writes a commit of more records than a call takes arguments (a restore of a large snapshot), and keeps them', async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir, {compactAfterBytes: 2 ** 31})
    // V8 takes about 120,000 arguments in a call on Node's default stack
    const count = 200_000
    // records of two shapes by turns: each a put of its own (alike ones in a row would be one run)
    const shaped = (i: number) => (i % 2 ? record(i) : {...record(i), note: 'even'})
    await store.commit(Array.from({length: count}, (_, i) => put('checks', `chk_${i}`, shaped(i))))
    expect(store.failure).toBeUndefined()
    await store.commit([put('checks', 'chk_next', record(count))])
    await store.close()
    const again = await openStore(dir)
    expect(again.tables.checks.size).toBe(count + 1)
    expect(again.tables.checks.get(`chk_${count - 2}`)).toEqual(shaped(count - 2))
    // 200,000 records written, compacted and read again: 10–25 s alone, 62 s once on a loaded machine
  }, 180_000)

  it('keeps snapshots as their JSON, read at a start from their document or the journal, or committed: a list reads their heads, a read parses one, the last one read kept parsed', async () => {
    const [compacted, journaled] = [
      snapshotOf('compacted', 'acct_1', [record(1)]),
      snapshotOf('journaled', 'acct_1', []),
    ]
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    await store.commit([put('snapshots', compacted.id, compacted)])
    await store.compact()
    await store.commit([put('snapshots', journaled.id, journaled)])
    // what a kill leaves: the first in its document, the second in the journal only
    const copy = await makeTempDir()
    for (const f of (await readdir(dir)).filter((name) => !name.endsWith('.lock'))) {
      await writeFile(join(copy, f), await readFile(join(dir, f)))
    }
    await store.close()
    const again = await openStore(copy)
    const {snapshots} = again.tables
    const third = snapshotOf('third', 'acct_1', [])
    const unread = () => [compacted.id, journaled.id, third.id].map((id) => snapshots.stored(id) instanceof Unread)
    expect(unread()).toEqual([true, true, false])
    const listed = await new MemoryStorage(again).snapshots('acct_1')
    expect(listed).toEqual([withoutRecords(compacted), withoutRecords(journaled)])
    expect(unread()).toEqual([true, true, false])
    // only the last one read stays parsed
    const read = snapshots.get(journaled.id)
    expect(read).toEqual(journaled)
    expect(snapshots.get(journaled.id)).toBe(read)
    expect(snapshots.get(compacted.id)).toEqual(compacted)
    expect(snapshots.get(journaled.id)).not.toBe(read)
    expect(unread()).toEqual([true, true, false])
    // one committed is kept as its JSON too, and a compaction that rewrites the snapshots copies their bytes
    await again.commit([put('snapshots', third.id, third)])
    expect(unread()).toEqual([true, true, true])
    await again.compact()
    expect(unread()).toEqual([true, true, true])
    await cleanup.pop()!()
    const last = await openStore(copy)
    expect([compacted, journaled, third].map((snapshot) => last.tables.snapshots.get(snapshot.id))).toEqual([
      compacted,
      journaled,
      third,
    ])
  })

  it('under --repair, drops a snapshot whose line no longer parses, though its id and account still read, and keeps the rest unread', async () => {
    const [kept, broken] = [snapshotOf('kept', 'acct_1', [record(1)]), snapshotOf('broken', 'acct_1', [record(2)])]
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    await store.commit([put('snapshots', kept.id, kept), put('snapshots', broken.id, broken)])
    await store.close()
    const path = join(dir, 'snapshots.json')
    const lines = (await readFile(path, 'utf8')).split('\n')
    const at = lines.findIndex((line) => line.includes('"acct_1/broken"'))
    lines[at] = lines[at]!.replace('"records":{', '"records":[')
    await writeFile(path, lines.join('\n'))
    await expect(Store.open({dir})).rejects.toThrow(`store: ${path} line ${at + 1} is corrupt`)
    const repaired = await openStore(dir, {repair: true})
    expect([...repaired.tables.snapshots.all()].map((snapshot) => snapshot.id)).toEqual([kept.id])
  })

  it('a start that replayed a journal is ready before that journal is compacted, which follows when the server asks', async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    await store.commit([put('checks', 'chk_1', record(1))])
    // what a kill leaves: the documents, and the change in the journal only
    const copy = await makeTempDir()
    for (const f of (await readdir(dir)).filter((name) => !name.endsWith('.lock'))) {
      await writeFile(join(copy, f), await readFile(join(dir, f)))
    }
    const again = await openStore(copy)
    expect(again.tables.checks.get('chk_1')).toEqual(record(1))
    // nothing compacted yet: the replayed segment and the one the start cut to
    expect([again.compactions, (await segments(copy)).length]).toEqual([0, 2])
    again.compactReplayed()
    // read at once, before the event loop turns: the compaction under way has not dropped the replayed segment yet
    const now = readdirSync(copy).filter((f) => f.startsWith('journal.'))
    expect([again.compactions, now.length]).toEqual([1, 2])
    await again.compact()
    expect([again.compactions, (await segments(copy)).length]).toEqual([1, 1])
    // asked again, it has nothing left to start
    again.compactReplayed()
    expect(again.compactions).toBe(1)
  })

  it('with fsync, writes and compacts through the synced path and reads everything back', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir, fsync: true, compactAfterBytes: 3000})
    await Promise.all(Array.from({length: 30}, (_, i) => store.commit([put('checks', `chk_${i}`, record(i))])))
    await store.close()
    const again = await openStore(dir)
    expect(again.tables.checks.size).toBe(30)
    expect(again.tables.checks.get('chk_29')).toEqual(record(29))
  })

  it('with fsync, syncs the name of a new journal file into its dir before answering a line written there', async () => {
    const dir = await realpath(await makeTempDir())
    const store = await Store.open({dir, fsync: true, segmentBytes: 100, compactAfterBytes: 1e9})
    cleanup.push(() => store.close())
    // the syncs of every file handle, by the path of what each syncs, in their order
    const log: [string, string][] = []
    const probe = await open(join(dir, 'probe'), 'w')
    const handles = Object.getPrototypeOf(probe) as FileHandle
    await probe.close()
    const {sync, datasync} = handles
    const logged = (kind: string, original: () => Promise<void>) =>
      function (this: FileHandle) {
        log.push([kind, readlinkSync(`/proc/self/fd/${this.fd}`)])
        return original.call(this)
      }
    handles.sync = logged('sync', sync)
    handles.datasync = logged('datasync', datasync)
    try {
      // each line passes a segment's 100 bytes: the next goes to a new file
      await store.commit([put('checks', 'chk_1', record(1))])
      await store.commit([put('checks', 'chk_2', record(2))])
    } finally {
      Object.assign(handles, {sync, datasync})
    }
    const [first, second] = (await segments(dir)).sort().map((name) => join(dir, name))
    expect(log).toEqual([
      ['datasync', first],
      ['sync', dir],
      ['datasync', second],
      ['sync', dir],
    ])
  })

  it('writes each journal line as framed entries with the CRC-32 of what follows it, and a record the same in the documents', async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    const tricky = {...record(1), table: {number: 'quote " backslash \\ newline \n é 🍝'}}
    await store.commit([put('checks', tricky.id, tricky), ['checks', 'chk_gone', null]])
    const [segment] = await segments(dir)
    const line = (await readFile(join(dir, segment!), 'utf8')).trimEnd()
    const json = JSON.stringify(tricky)
    const rest = `1 put checks 7:"chk_1" ${Buffer.byteLength(json)}:${json} del checks 10:"chk_gone" 0:`
    expect(line).toBe(`${crc32(rest)} ${rest}`)
    await store.compact()
    expect((await readFile(join(dir, 'checks.json'), 'utf8')).split('\n')).toContain(`    ${JSON.stringify(tricky)}`)
  })

  it('reads back a record of many-byte characters from a journal line and from a document, checksums and all', async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    const tricky = {...record(1), table: {number: 'é 🍝 ünïcødé, "quoted", back\\slash'}}
    await store.commit([put('checks', tricky.id, tricky)])
    const fromJournal = await makeTempDir()
    for (const f of (await readdir(dir)).filter((name) => !name.endsWith('.lock'))) {
      await writeFile(join(fromJournal, f), await readFile(join(dir, f)))
    }
    await store.close()
    expect((await openStore(fromJournal)).tables.checks.get(tricky.id)).toEqual(tricky)
    expect((await openStore(dir)).tables.checks.get(tricky.id)).toEqual(tricky)
  })

  it('compacts once the journal is twice the size of the documents, not before', async () => {
    const dir = await makeTempDir()
    const store = await openStore(dir, {compactAfterBytes: 1})
    await store.commit(Array.from({length: 50}, (_, i) => put('checks', `chk_${i}`, record(i))))
    await store.compact()
    const [segment] = await segments(dir)
    const sizeOf = async (names: string[]) =>
      (await Promise.all(names.map((name) => stat(join(dir, name))))).reduce((sum, s) => sum + s.size, 0)
    // the collections' documents: not documents.json, their index, which the trigger leaves out
    const documents = await sizeOf(
      (await readdir(dir)).filter((name) => name.endsWith('.json') && name !== 'documents.json'),
    )
    let journal = 0
    let step = 0
    for (let version = 100; ; version++) {
      // each change replaces a record, so the documents stay the same size
      await store.commit([put('checks', `chk_${version % 50}`, {...record(version % 50), version})])
      await store.settled()
      if ((await segments(dir)).some((name) => name > segment!)) break
      const size = await sizeOf([segment!])
      step = size - journal
      journal = size
    }
    // the journal grew past the documents' size without a compaction, which came with the change that took it past twice that
    expect(journal).toBeGreaterThan(documents)
    expect(journal).toBeLessThanOrEqual(2 * documents)
    expect(journal + step).toBeGreaterThan(2 * documents)
  })

  /**
   * Commits `records` as checks, stops, and checks the document written (one record per line, its count and
   * the CRC-32 of the records' JSON) and the records a reopen reads back; resolves with the document's text.
   */
  async function writtenAndReadBack(records: ReturnType<typeof record>[]): Promise<string> {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    await store.commit(records.map((r) => put('checks', r.id, r)))
    await store.close()
    const text = await readFile(join(dir, 'checks.json'), 'utf8')
    expect(JSON.parse(text)).toEqual({
      seq: 1,
      records,
      collection: 'checks',
      count: records.length,
      crc: crc32(records.map((r) => JSON.stringify(r)).join('')),
    })
    const again = await openStore(dir)
    expect([...again.tables.checks.all()]).toEqual(records)
    return text
  }

  it('writes a collection larger than one write slice whole, one record per line, and reads it back', async () => {
    const text = await writtenAndReadBack(Array.from({length: 1234}, (_, i) => record(i)))
    expect(text.split('\n').filter((line) => line.includes('"object":"check"'))).toHaveLength(1234)
  })

  it('writes records that pass 16 MiB within one slice in parts, whole and checksummed, and reads them back', async () => {
    // four checks of about 7 MB of notes each, many-byte characters among them: the slice is written once its
    // third passes 16 MiB, and the fourth after it
    await writtenAndReadBack(
      Array.from({length: 4}, (_, i) => ({...record(i), note: `${i}é`.repeat(2.4 * 1024 * 1024)})),
    )
  })

  it('goes on in a new journal segment once one is full, and replays them all after a kill', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir, segmentBytes: 2000})
    for (let i = 0; i < 40; i++) await store.commit([put('checks', `chk_${i}`, record(i))])
    const copy = await makeTempDir()
    for (const f of await segments(dir)) await writeFile(join(copy, f), await readFile(join(dir, f)))
    const sizes = await Promise.all((await segments(copy)).map(async (f) => (await stat(join(copy, f))).size))
    expect(sizes.length).toBeGreaterThan(5)
    // a segment passes the limit by at most the line that filled it
    for (const size of sizes) expect(size).toBeLessThan(2000 + 600)
    await store.close()
    const recovered = await openStore(copy)
    expect(recovered.tables.checks.size).toBe(40)
  })

  it('a compaction drops only the segments the documents hold, not those filled while it ran', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir, segmentBytes: 1000, compactAfterBytes: 3000})
    for (let round = 0; round < 10; round++) {
      const batch = Array.from({length: 10}, (_, i) => record(round * 10 + i))
      await Promise.all(batch.map((r) => store.commit([put('checks', r.id, r)])))
    }
    await store.compact()
    await store.settled()
    // what a kill now would leave
    const copy = await makeTempDir()
    for (const f of (await readdir(dir)).filter((name) => !name.endsWith('.lock'))) {
      await writeFile(join(copy, f), await readFile(join(dir, f)))
    }
    await store.close()
    expect((await openStore(copy)).tables.checks.size).toBe(100)
  })

  it('replays the journal when the process died before compaction', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    await store.commit([put('checks', 'chk_1', record(1))])
    await store.commit([put('checks', 'chk_2', record(2))])
    // no close(): what a killed process leaves behind is the journal only (and its lock)
    const journal = await segments(dir)
    const copy = await makeTempDir()
    await writeFile(join(copy, journal[0]!), await readFile(join(dir, journal[0]!)))
    const recovered = await openStore(copy)
    expect([...recovered.tables.checks.all()].map((c) => c.id)).toEqual(['chk_1', 'chk_2'])
    await store.close()
  })

  it('drops a torn last line (a crash mid-write) and keeps the rest', async () => {
    const dir = await makeTempDir()
    const copy = await makeTempDir()
    const store = await Store.open({dir})
    await store.commit([put('checks', 'chk_1', record(1))])
    const [journal] = await segments(dir)
    await writeFile(join(copy, journal!), await readFile(join(dir, journal!)))
    await appendFile(join(copy, journal!), '{"seq":2,"changes":[["checks","chk_2",{"id":')
    await store.close()
    const recovered = await openStore(copy)
    expect([...recovered.tables.checks.all()].map((c) => c.id)).toEqual(['chk_1'])
  })

  it('refuses a journal corrupted in the middle, naming the file', async () => {
    const dir = await makeTempDir()
    await writeFile(join(dir, 'journal.000000000001.ndjson'), 'garbage\n{"seq":2,"changes":[]}\n')
    await expect(Store.open({dir})).rejects.toThrow(/journal\.000000000001\.ndjson line 1 is corrupt/)
  })

  it('tightens an existing data dir to 0700', async () => {
    const dir = join(await makeTempDir(), 'data')
    await mkdir(dir)
    await chmod(dir, 0o755)
    await openStore(dir)
    expect((await stat(dir)).mode & 0o777).toBe(0o700)
  })

  it('a compaction that fails leaves no temp file behind, and one left by a killed compaction is removed at start', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    await store.commit([put('checks', 'chk_1', record(1))])
    // the temp file is on a full disk: writing it fails with ENOSPC
    await symlink('/dev/full', join(dir, '.checks.json.tmp'))
    await expect(store.compact()).rejects.toMatchObject({code: 'ENOSPC'})
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([])
    await store.close()
    await writeFile(join(dir, '.checks.json.tmp'), '{"seq": 1, "rec')
    const again = await openStore(dir)
    expect(again.tables.checks.get('chk_1')).toEqual(record(1))
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })

  it('creates the data dir 0700 and every file 0600', async () => {
    const dir = join(await makeTempDir(), 'data')
    const store = await Store.open({dir})
    await store.commit([put('checks', 'chk_1', record(1))])
    await store.close()
    expect((await stat(dir)).mode & 0o777).toBe(0o700)
    for (const file of await readdir(dir))
      expect([file, (await stat(join(dir, file))).mode & 0o777]).toEqual([file, 0o600])
  })
})

describe('the data dir lock', () => {
  it('a second server on the same dir refuses with a clear message', async () => {
    const dir = await makeTempDir()
    await openStore(dir)
    await expect(Store.open({dir})).rejects.toThrow(/in use by another tablepay server \(pid \d+\).*--data/)
  })

  it('a second open of the same dir in this process, by a symlink or a relative path, refuses too', async () => {
    const dir = await makeTempDir()
    const first = await openStore(dir)
    const link = join(await makeTempDir(), 'link')
    await symlink(dir, link)
    await expect(Store.open({dir: link})).rejects.toThrow(/in use by another tablepay server/)
    await expect(Store.open({dir: relative(process.cwd(), dir)})).rejects.toThrow(/in use by another tablepay server/)
    // the first still holds it, and its changes stay its own
    expect((await readdir(dir)).filter((name) => name.endsWith('.lock'))).toHaveLength(1)
    await first.commit([put('checks', 'chk_1', record(1))])
  })

  it('a lock whose pid now belongs to another program (pid reuse) is taken over', async () => {
    const dir = await makeTempDir()
    // the test runner's parent is alive, but it is not the process that wrote this lock: its start time differs
    const lock = {pid: process.ppid, started_at: new Date().toISOString(), proc_start: '1'}
    await writeFile(join(dir, 'server.lock'), JSON.stringify(lock))
    expect((await openStore(dir)).persistent).toBe(true)
  })

  it('a lock written before the last boot is taken over, even when its pid is alive again', async () => {
    const dir = await makeTempDir()
    await writeFile(
      join(dir, 'server.lock'),
      JSON.stringify({pid: process.ppid, started_at: '2000-01-01T00:00:00.000Z'}),
    )
    expect((await openStore(dir)).persistent).toBe(true)
  })

  it('a lock whose pid is alive and is the same process as wrote it is refused, naming the file to delete', async () => {
    const dir = await makeTempDir()
    const stat = await readFile(`/proc/${process.ppid}/stat`, 'utf8')
    const procStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
    const lock = {pid: process.ppid, started_at: new Date().toISOString(), proc_start: procStart}
    await writeFile(join(dir, 'server.000000000003.lock'), JSON.stringify(lock))
    await expect(Store.open({dir})).rejects.toThrow(`pid ${process.ppid}). Stop it`)
    await expect(Store.open({dir})).rejects.toThrow(`delete ${join(dir, 'server.000000000003.lock')}`)
  })

  it('the temp file of a lock that a killed process was taking is removed by the next start', async () => {
    const dir = await makeTempDir()
    await writeFile(join(dir, 'server.000000000001.lock.4194305.k3x9.tmp'), JSON.stringify({pid: 4194305}))
    await openStore(dir)
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })

  it('a lock left by a killed server is taken over', async () => {
    const dir = await makeTempDir()
    // pid 2^22 + 1 is above Linux's pid_max: no such process
    await writeFile(join(dir, 'server.lock'), JSON.stringify({pid: 4194305}))
    const store = await openStore(dir)
    expect(store.persistent).toBe(true)
  })
})

describe('serve on an existing data dir', () => {
  let sim: TestServer | undefined
  afterEach(async () => {
    await sim?.close()
    sim = undefined
  })

  it('restart keeps checks, claims and events byte for byte', async () => {
    const server = (sim = await startTestServer())
    const check = await server.api('PUT', '/v1/checks/external/t1', {body: checkWith([['a', 2, 500]], {version: 4})})
    await server.api('POST', `/v1/sim/checks/${check.body.id}/claims`, {
      body: {items: [{external_id: 'a', quantity: 1}]},
    })
    const before = await Promise.all(
      ['/v1/checks', '/v1/events', `/v1/checks/${check.body.id}/claims`, '/v1/locations'].map((p) =>
        server.api('GET', p),
      ),
    )
    await server.stop()
    await server.restart()
    const after = await Promise.all(
      ['/v1/checks', '/v1/events', `/v1/checks/${check.body.id}/claims`, '/v1/locations'].map((p) =>
        server.api('GET', p),
      ),
    )
    // guest_url carries the port, which a restart may change
    const portless = (text: string) => text.replace(/http:\/\/127\.0\.0\.1:\d+/g, '')
    expect(after.map((a) => portless(a.text))).toEqual(before.map((b) => portless(b.text)))
    expect(
      (await server.api('PUT', '/v1/checks/external/t1', {body: checkWith([['a', 2, 500]], {version: 3})})).headers.get(
        'x-tablepay-push-result',
      ),
    ).toBe('stale')
  })

  it('seeding again adds what is missing and changes nothing else', async () => {
    const root = await makeTempDir()
    const dataDir = join(root, 'data')
    const seed = {
      accounts: [
        {
          id: 'acct_s',
          name: 'First name',
          locations: [{id: 'loc_s', name: 'Room', timezone: 'UTC', currency: 'EUR'}],
          api_keys: [{key: 'tp_test_s_write', scopes: ['read', 'write'] as ('read' | 'write')[]}],
        },
      ],
    }
    const first = await startServer({port: 0, host: '127.0.0.1', dataDir, seedFile: await writeSeed(root, seed)})
    expect(first.seeded).toBe(true)
    await call(first.url, 'PUT', '/v1/checks/external/kept', {key: 'tp_test_s_write', body: checkWith([['a', 1, 100]])})
    await first.close()
    seed.accounts[0]!.name = 'Renamed'
    seed.accounts[0]!.api_keys.push({key: 'tp_test_s_read', scopes: ['read']})
    const second = await startServer({port: 0, host: '127.0.0.1', dataDir, seedFile: await writeSeed(root, seed)})
    cleanup.push(() => second.close())
    expect(second.accounts).toEqual([
      {
        id: 'acct_s',
        name: 'First name',
        locations: [{id: 'loc_s', name: 'Room'}],
        api_keys: [
          {key: 'tp_test_s_write', scopes: ['read', 'write']},
          {key: 'tp_test_s_read', scopes: ['read']},
        ],
      },
    ])
    expect((await call(second.url, 'GET', '/v1/checks/external/kept', {key: 'tp_test_s_read'})).status).toBe(200)
  })

  it('a seed that lists a key, a location or an account twice is refused, naming both places', async () => {
    const account = (id: string, location: string, key: string) => ({
      id,
      name: id,
      locations: [{id: location, name: 'Room', timezone: 'UTC', currency: 'EUR'}],
      api_keys: [{key, scopes: ['read'] as 'read'[]}],
    })
    const root = await makeTempDir()
    const start = async (accounts: ReturnType<typeof account>[]) =>
      startServer({
        port: 0,
        host: '127.0.0.1',
        dataDir: join(root, 'data'),
        seedFile: await writeSeed(root, {accounts}),
      })
    await expect(
      start([account('acct_a', 'loc_a', 'tp_test_same'), account('acct_b', 'loc_b', 'tp_test_same')]),
    ).rejects.toThrow('accounts.1.api_keys.0.key: "tp_test_same" is already listed at accounts.0.api_keys.0.key')
    await expect(
      start([account('acct_a', 'loc_same', 'tp_test_aaaa'), account('acct_b', 'loc_same', 'tp_test_bbbb')]),
    ).rejects.toThrow('"loc_same" is already listed')
    await expect(
      start([account('acct_same', 'loc_a', 'tp_test_aaaa'), account('acct_same', 'loc_b', 'tp_test_bbbb')]),
    ).rejects.toThrow('"acct_same" is already listed')
  })

  it('a seed that gives an existing key to another account is refused, and the key stays with its account', async () => {
    const root = await makeTempDir()
    const dataDir = join(root, 'data')
    const seedOf = (accountId: string) => ({
      accounts: [
        {
          id: accountId,
          name: accountId,
          locations: [{id: `loc_${accountId}`, name: 'Room', timezone: 'UTC', currency: 'EUR'}],
          api_keys: [{key: 'tp_test_kept', scopes: ['read', 'write'] as ('read' | 'write')[]}],
        },
      ],
    })
    const first = await startServer({
      port: 0,
      host: '127.0.0.1',
      dataDir,
      seedFile: await writeSeed(root, seedOf('acct_first')),
    })
    await first.close()
    await expect(
      startServer({port: 0, host: '127.0.0.1', dataDir, seedFile: await writeSeed(root, seedOf('acct_second'))}),
    ).rejects.toThrow('seed: key tp_test_kept belongs to acct_first in this data dir, not acct_second')
    const again = await startServer({port: 0, host: '127.0.0.1', dataDir})
    cleanup.push(() => again.close())
    expect(again.accounts.map((a) => [a.id, a.api_keys.map((k) => k.key)])).toEqual([['acct_first', ['tp_test_kept']]])
  })

  it('a fresh data dir is seeded with one account, two locations, a write and a read key', async () => {
    const dataDir = join(await makeTempDir(), 'data')
    const server = await startServer({port: 0, host: '127.0.0.1', dataDir})
    cleanup.push(() => server.close())
    expect(server.seeded).toBe(true)
    const [account] = server.accounts
    expect(account!.locations).toHaveLength(2)
    expect(account!.api_keys.map((k) => k.scopes)).toEqual([['read', 'write'], ['read']])
    const info = JSON.parse(await readFile(join(dataDir, 'server.json'), 'utf8'))
    expect(info).toMatchObject({
      url: server.url,
      api_key: account!.api_keys[0]!.key,
      read_key: account!.api_keys[1]!.key,
    })
    expect((await call(server.url, 'GET', '/v1/locations', {key: info.read_key})).body.data).toHaveLength(2)
  })
})

describe('recovery edge cases', () => {
  it('a torn tail is cut from disk, so the next append starts on a fresh line and survives', async () => {
    const dir = await makeTempDir()
    await writeFile(join(dir, 'journal.000000000003.ndjson'), '{"seq":3,"changes":[["accou')
    const first = await Store.open({dir})
    await first.commit([put('checks', 'chk_1', record(1))])
    // simulate a kill: copy the files without closing
    const copy = await makeTempDir()
    for (const f of await segments(dir)) await writeFile(join(copy, f), await readFile(join(dir, f)))
    await first.close()
    const recovered = await openStore(copy)
    expect(recovered.tables.checks.get('chk_1')).toEqual(record(1))
  })

  it('an empty lock file (a crash between create and write) is taken over', async () => {
    const dir = await makeTempDir()
    await writeFile(join(dir, 'server.lock'), '')
    expect((await openStore(dir)).persistent).toBe(true)
  })
})

describe('a journal write that fails', () => {
  /**
   * A store whose next journal segment is /dev/full, where every write fails
   * with ENOSPC: a real full disk, from the point where the test says so.
   */
  async function storeWithFullDisk() {
    const dir = await makeTempDir()
    const store = await openStore(dir)
    await store.commit([put('checks', 'chk_1', record(1))])
    await store.commit([put('checks', 'chk_2', record(2))])
    // compaction starts the segment that begins after seq 2
    await symlink('/dev/full', join(dir, 'journal.000000000003.ndjson'))
    await store.compact()
    cleanup.push(() => rm(join(dir, 'journal.000000000003.ndjson'), {force: true}))
    return {dir, store}
  }

  it('fails its commit, then every commit and read, and changes nothing more in memory', async () => {
    const {store} = await storeWithFullDisk()
    await expect(store.commit([put('checks', 'chk_3', record(3))])).rejects.toMatchObject({code: 'ENOSPC'})
    expect(store.failure).toMatchObject({code: 'ENOSPC'})
    await expect(store.commit([put('checks', 'chk_4', record(4))])).rejects.toMatchObject({code: 'ENOSPC'})
    expect(store.tables.checks.get('chk_4')).toBeUndefined()
    await expect(store.settled()).rejects.toMatchObject({code: 'ENOSPC'})
  })

  it('leaves on disk exactly what was acknowledged: a restart reads it back', async () => {
    const {dir, store} = await storeWithFullDisk()
    await expect(store.commit([put('checks', 'chk_3', record(3))])).rejects.toThrow()
    await store.close()
    await rm(join(dir, 'journal.000000000003.ndjson'))
    const again = await openStore(dir)
    expect([...again.tables.checks.all()].map((c) => c.id)).toEqual(['chk_1', 'chk_2'])
    await again.commit([put('checks', 'chk_5', record(5))])
    expect(again.tables.checks.get('chk_5')).toEqual(record(5))
  })
})
