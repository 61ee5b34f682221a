import {cp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {put, Store} from '../../src/store/store.js'
import {checkRecord} from '../helpers/checks.js'
import {makeTempDir} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

const record = checkRecord

async function openStore(dir: string, repair = false) {
  const store = await Store.open({dir, repair})
  cleanup.push(() => store.close())
  return store
}

/** A data dir as a killed server leaves it: documents holding checks 1-2 (compacted), a journal holding checks 3-5. */
async function killedDataDir(): Promise<{dir: string; segment: string}> {
  const live = await makeTempDir()
  const store = await Store.open({dir: live})
  await store.commit([put('checks', 'chk_1', record(1)), put('events', 'evt_1', {id: 'evt_1'} as never)])
  await store.commit([put('checks', 'chk_2', record(2))])
  await store.compact()
  for (const i of [3, 4, 5]) await store.commit([put('checks', `chk_${i}`, record(i))])
  const dir = await makeTempDir()
  await cp(live, dir, {recursive: true, filter: (source) => !source.endsWith('.lock')})
  await store.close()
  const [segment] = (await readdir(dir)).filter((f) => f.startsWith('journal.'))
  return {dir, segment: join(dir, segment!)}
}

async function editLine(path: string, n: number, edit: (line: string) => string | undefined): Promise<void> {
  const lines = (await readFile(path, 'utf8')).split('\n')
  const edited = edit(lines[n - 1]!)
  if (edited === undefined) lines.splice(n - 1, 1)
  else lines[n - 1] = edited
  await writeFile(path, lines.join('\n'))
}

/** Every file of the dir with its content: a refused start must change none of them. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const names = (await readdir(dir)).filter((f) => !f.endsWith('.lock')).sort()
  return Object.fromEntries(await Promise.all(names.map(async (f) => [f, await readFile(join(dir, f), 'utf8')])))
}

const checkIds = (store: Store) => [...store.tables.checks.all()].map((c) => c.id).sort()

describe('a damaged journal', () => {
  it('a garbled last line, newline kept, refuses the start, naming file, line and --repair, and changes nothing', async () => {
    const {dir, segment} = await killedDataDir()
    await editLine(segment, 3, (line) => line.replace('"chk_5"', '"chk_5\u0000'))
    const before = await snapshot(dir)
    await expect(Store.open({dir})).rejects.toThrow(`store: ${segment} line 3 is corrupt`)
    await expect(Store.open({dir})).rejects.toThrow(/--repair/)
    expect(await snapshot(dir)).toEqual(before)
  })

  it('a line edited into other valid JSON is refused: its checksum no longer matches', async () => {
    const {dir, segment} = await killedDataDir()
    await editLine(segment, 2, (line) => line.replace('"total_cents":4', '"total_cents":400'))
    await expect(Store.open({dir})).rejects.toThrow(`${segment} line 2 is corrupt: its checksum does not match`)
  })

  it('a line taken out of the middle is refused: the next seq is not the one expected', async () => {
    const {dir, segment} = await killedDataDir()
    await editLine(segment, 2, () => undefined)
    await expect(Store.open({dir})).rejects.toThrow(`${segment} line 2 is corrupt: it has seq 5 where 4 was expected`)
  })

  it('a line whose checksum was removed is refused once lines before it have one', async () => {
    const {dir, segment} = await killedDataDir()
    // a line of the earlier JSON layout without its checksum, after a framed line that has one
    await editLine(segment, 2, () => JSON.stringify({seq: 4, changes: [['checks', 'chk_4', record(4)]]}))
    await expect(Store.open({dir})).rejects.toThrow(`${segment} line 2 is corrupt: it has no checksum`)
  })

  it('with --repair, starts with every intact change and saves the dropped line to a side file', async () => {
    const {dir, segment} = await killedDataDir()
    let garbled = ''
    await editLine(segment, 1, (line) => (garbled = line.slice(0, 40) + '#' + line.slice(41)))
    const store = await openStore(dir, true)
    expect(checkIds(store)).toEqual(['chk_1', 'chk_2', 'chk_4', 'chk_5'])
    const [side] = (await readdir(dir)).filter((f) => f.startsWith('repair-'))
    const dropped = (await readFile(join(dir, side!), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(dropped[0]).toEqual({file: segment, line: 1, problem: expect.stringContaining('corrupt'), text: garbled})
    await store.close()
    cleanup.pop()
    // the damage is gone: the next start needs no --repair
    expect(checkIds(await openStore(dir))).toEqual(['chk_1', 'chk_2', 'chk_4', 'chk_5'])
  })

  it('with --repair, a garbled line that was all its segment held is gone: the next start needs no --repair', async () => {
    const live = await makeTempDir()
    const store = await Store.open({dir: live})
    await store.commit([put('checks', 'chk_1', record(1))])
    await store.compact()
    // the one line of the segment the compaction cut to, as a kill leaves it
    await store.commit([put('checks', 'chk_2', record(2))])
    const dir = await makeTempDir()
    await cp(live, dir, {recursive: true, filter: (source) => !source.endsWith('.lock')})
    await store.close()
    const [segment] = (await readdir(dir)).filter((f) => f.startsWith('journal.'))
    await editLine(join(dir, segment!), 1, (line) => line.replace('"chk_2"', '"chk_2\u0000'))
    await expect(Store.open({dir})).rejects.toThrow(`store: ${join(dir, segment!)} line 1 is corrupt`)
    const repaired = await openStore(dir, true)
    expect(checkIds(repaired)).toEqual(['chk_1'])
    // a change after it, then a kill: its line is not written after the dropped one
    await repaired.commit([put('checks', 'chk_3', record(3))])
    const killed = await makeTempDir()
    await cp(dir, killed, {recursive: true, filter: (source) => !source.endsWith('.lock')})
    expect(checkIds(await openStore(killed))).toEqual(['chk_1', 'chk_3'])
  })

  it('a journal written before lines had checksums still replays', async () => {
    const dir = await makeTempDir()
    const lines = [1, 2].map((i) => JSON.stringify({seq: i, changes: [['checks', `chk_${i}`, record(i)]]}) + '\n')
    await writeFile(join(dir, 'journal.000000000001.ndjson'), lines.join(''))
    expect(checkIds(await openStore(dir))).toEqual(['chk_1', 'chk_2'])
  })
})

describe('a damaged document', () => {
  async function compactedDataDir(): Promise<string> {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    await store.commit([put('checks', 'chk_1', record(1)), put('checks', 'chk_2', record(2))])
    await store.close()
    return dir
  }

  it('a deleted checks.json refuses the start, naming it', async () => {
    const dir = await compactedDataDir()
    await rm(join(dir, 'checks.json'))
    const missing = `store: ${join(dir, 'checks.json')} is missing, while the other documents are there`
    await expect(Store.open({dir})).rejects.toThrow(missing)
  })

  it('a checks.json holding null refuses the start, naming it', async () => {
    const dir = await compactedDataDir()
    await writeFile(join(dir, 'checks.json'), 'null\n')
    await expect(Store.open({dir})).rejects.toThrow(`store: ${join(dir, 'checks.json')} line 1 is corrupt`)
  })

  it('a document cut short names the file and where it ends', async () => {
    const dir = await compactedDataDir()
    const text = await readFile(join(dir, 'checks.json'), 'utf8')
    await writeFile(join(dir, 'checks.json'), text.slice(0, text.indexOf('chk_2')))
    await expect(Store.open({dir})).rejects.toThrow(`store: ${join(dir, 'checks.json')} line 5 is corrupt`)
  })

  it('a record edited into other valid JSON is refused: the checksum no longer matches', async () => {
    const dir = await compactedDataDir()
    const path = join(dir, 'checks.json')
    await writeFile(path, (await readFile(path, 'utf8')).replace('"total_cents":2', '"total_cents":200'))
    await expect(Store.open({dir})).rejects.toThrow(`store: ${path} is corrupt: its records do not match its checksum`)
  })

  it('with --repair, keeps the records that read, and the next start needs no repair', async () => {
    const dir = await compactedDataDir()
    const path = join(dir, 'checks.json')
    await writeFile(path, (await readFile(path, 'utf8')).replace('"chk_1"', '"chk_1'))
    expect(checkIds(await openStore(dir, true))).toEqual(['chk_2'])
    await cleanup.pop()!()
    expect(checkIds(await openStore(dir))).toEqual(['chk_2'])
  })

  it('a document in the layout of earlier versions is read, and rewritten with a count and checksum', async () => {
    const dir = await makeTempDir()
    const records = [record(1), record(2)]
    const lines = records.map((r) => `    ${JSON.stringify(r)}`).join(',\n')
    await writeFile(join(dir, 'checks.json'), `{\n  "seq": 4,\n  "records": [\n${lines}\n  ]\n}\n`)
    await writeFile(join(dir, 'events.json'), `{\n  "seq": 4,\n  "records": []\n}\n`)
    const store = await openStore(dir)
    expect([...store.tables.checks.all()]).toEqual(records)
    expect(JSON.parse(await readFile(join(dir, 'checks.json'), 'utf8'))).toMatchObject({seq: 4, count: 2})
    expect(JSON.parse(await readFile(join(dir, 'events.json'), 'utf8'))).toMatchObject({seq: 4, count: 0})
  })

  it('a document laid out some other way, such as pretty-printed by hand, is still read', async () => {
    const dir = await makeTempDir()
    const records = [record(1), record(2)]
    await writeFile(join(dir, 'checks.json'), JSON.stringify({seq: 0, records}, null, 2))
    expect([...(await openStore(dir)).tables.checks.all()]).toEqual(records)
  })
})
