import {appendFile, cp, readdir, readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {crc32} from 'node:zlib'
import {afterEach, describe, expect, it} from 'vitest'
import {Store} from '../../src/store/store.js'
import {makeTempDir} from '../helpers/simulator.js'

/**
 * A data dir written by the store before journal lines were framed, as a
 * killed server left it: documents of a compaction at seq 3, then a journal
 * of JSON lines (`{"seq":N,"changes":[…],"crc":C}`) holding a push's check
 * as a copy of its event's data, deliveries to five endpoints as a run, a
 * delivery's attempt, a check put whole, a check deleted, and endpoints
 * disabled. Made by that version's `Store` and `applyPush`, not by hand.
 */
const FIXTURE = join(import.meta.dirname, '../fixtures/journal-v1')

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function openStore(dir: string) {
  const store = await Store.open({dir})
  cleanup.push(() => store.close())
  return store
}

type Line = {seq: number; changes: unknown[][]; crc: number}

const journalOf = async (dir: string) => {
  const names = (await readdir(dir)).filter((name) => name.startsWith('journal.')).sort()
  return (await Promise.all(names.map((name) => readFile(join(dir, name), 'utf8')))).join('')
}

/** The check a copy `[collection, id, source, fields]` stands for, from its source's `data`: each field its own or the data's. */
function copied(line: Line): Record<string, unknown> {
  const [, , source, fields] = line.changes[0] as [string, string, number, (string | [string, unknown])[]]
  const data = (line.changes[source]![2] as {data: Record<string, unknown>}).data
  return Object.fromEntries(fields.map((field) => (typeof field === 'string' ? [field, data[field]] : field)))
}

describe('a data dir whose journal is of the earlier JSON lines', () => {
  it('is the format those versions wrote: JSON lines with a checksum, a copy, a run and a delete', async () => {
    const lines = (await journalOf(FIXTURE))
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as Line)
    expect(lines.map((line) => line.seq)).toEqual([4, 5, 6, 7, 8, 9, 10])
    expect(lines.every((line) => Number.isInteger(line.crc))).toBe(true)
    expect(lines[0]!.changes.map((change) => change.length)).toEqual([4, 3, 4])
    expect(lines[5]!.changes).toEqual([['checks', expect.any(String), null]])
  })

  it('opens with every record as those versions replayed it, and is migrated: documents rewritten, the JSON lines dropped', async () => {
    const dir = await makeTempDir()
    await cp(FIXTURE, dir, {recursive: true})
    const lines = (await journalOf(dir))
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as Line)
    const store = await openStore(dir)
    const checks = store.tables.checks.idsOf('acct_1').map((id) => store.tables.checks.get(id)!)
    // a's last push (a copy), b put whole after its push; c, created and deleted, is gone
    expect(checks.map((check) => check.external_id)).toEqual(['a', 'b'])
    expect(JSON.stringify(checks[0])).toBe(JSON.stringify(copied(lines[0]!)))
    expect(JSON.stringify(checks[1])).toBe(JSON.stringify(lines[3]!.changes[0]![2]))
    expect(store.tables.events.size).toBe(4)
    const deliveries = store.tables.deliveries.idsOf('acct_1').map((id) => store.tables.deliveries.get(id)!)
    expect(deliveries).toHaveLength(12)
    expect(JSON.stringify(store.tables.deliveries.get(lines[2]!.changes[0]![1] as string))).toBe(
      JSON.stringify(lines[2]!.changes[0]![2]),
    )
    const disabled = [...store.tables.webhook_endpoints.all()].filter((endpoint) => endpoint.status === 'disabled')
    expect(disabled.map((endpoint) => endpoint.id)).toEqual(['we_2', 'we_3', 'we_4'])
    // migrated before the start ends: the documents hold the journal, whose JSON lines are gone
    expect(await journalOf(dir)).toBe('')
    const index = JSON.parse(await readFile(join(dir, 'documents.json'), 'utf8')) as {seq: number}
    expect(index.seq).toBe(10)
    // what comes next is framed, and the dir opens again as it was
    await store.commit([['checks', checks[1]!.id, null]])
    expect(await journalOf(dir)).toMatch(/^\d+ 11 del checks /)
    await store.close()
    cleanup.pop()
    const reopened = await openStore(dir)
    expect(reopened.tables.checks.idsOf('acct_1')).toEqual([checks[0]!.id])
    expect(JSON.stringify(reopened.tables.checks.get(checks[0]!.id))).toBe(JSON.stringify(checks[0]))
    expect(reopened.tables.deliveries.size).toBe(12)
  })

  it('replays a run of more rows than a call takes arguments', async () => {
    const dir = await makeTempDir()
    await cp(FIXTURE, dir, {recursive: true})
    const [first] = (await journalOf(dir))
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as Line)
    const [collection, template, varying] = first!.changes[2] as [string, unknown, string[], unknown[][]]
    // V8 takes about 120,000 arguments in a call on Node's default stack
    const rows = Array.from({length: 200_000}, (_, i) => [`dlv_many_${i}`, 'we_0'])
    const text = `{"seq":11,"changes":${JSON.stringify([[collection, template, varying, rows]])}`
    await appendFile(join(dir, 'journal.000000000004.ndjson'), `${text},"crc":${crc32(text)}}\n`)
    const store = await openStore(dir)
    expect(store.tables.deliveries.size).toBe(12 + rows.length)
    expect(store.tables.deliveries.get('dlv_many_199999')?.endpoint_id).toBe('we_0')
  }, 60_000)
})
