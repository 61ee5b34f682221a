import {cp} from 'node:fs/promises'
import fc from 'fast-check'
import {afterEach, describe, expect, it} from 'vitest'
import type {CollectionName} from '../../src/domain/records.js'
import {type FrameText, readLine, writeLine} from '../../src/store/journal-frames.js'
import {type Change, Store} from '../../src/store/store.js'
import {makeTempDir} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/**
 * Any JSON object's fields, with keys that JSON and the journal's short forms must keep as they are ("__proto__"
 * among them). Not `id`: a table keys its records by their id, a string the service always gives them.
 */
const fields = fc.dictionary(
  fc.oneof(fc.string(), fc.constantFrom('__proto__', 'data')).filter((key) => key !== 'id'),
  fc.jsonValue(),
  {maxKeys: 6},
)
/** Ids as a caller may choose them: quotes, backslashes, newlines, many-byte characters. */
const id = fc.string({minLength: 1, maxLength: 12, unit: 'binary'})

/** A record of `collection` stored under `key`: its id first and its account last, as the store writes them, or not. */
const record = (key: string, extra: Record<string, unknown>, more: Record<string, unknown>) => ({
  id: key,
  ...extra,
  ...more,
  id_again: key,
  account_id: 'acct_1',
})

/** A push as the service commits it: a check whose fields are those of its event's resource, the event, its deliveries. */
const push = fc
  .record({check: id, event: id, data: fields, own: fields, deliveries: fc.uniqueArray(id, {maxLength: 6})})
  .map(({check, event, data, own, deliveries}): Change[] => {
    const resource = {...data, id: check}
    const changes: Change[] = [
      ['checks', check, {...resource, ...own, id: check, account_id: 'acct_1', guest_token: `gt_${check}`} as never],
      ['events', event, record(event, {data: resource}, own) as never],
    ]
    // alike deliveries to each endpoint: four or more are written as a run
    for (const [i, delivery] of deliveries.entries()) {
      const fields = {endpoint_id: `we_${i}`, event_id: event, status: 'pending', attempts: []}
      changes.push(['deliveries', delivery, record(delivery, fields, {}) as never])
    }
    return changes
  })

/**
 * A record put whole, or deleted (naming its owner or not, as an endpoint's deletion does for the live
 * streams), in one of the collections a test may fill freely.
 */
const plain = fc
  .record({
    collection: fc.constantFrom<CollectionName>('claims', 'payments', 'events', 'deliveries', 'webhook_endpoints'),
    key: id,
    extra: fields,
    deleted: fc.constantFrom(false, 'plainly', 'naming its owner'),
  })
  .map(({collection, key, extra, deleted}): Change[] => [
    deleted === 'naming its owner'
      ? [collection, key, null, 'acct_1']
      : [
          collection,
          key,
          deleted ? null : (record(key, extra, {event_id: 'evt', status: 'x', endpoint_id: 'we'}) as never),
        ],
  ])

/** Every record of every table, in order, as JSON: what a reopen must give back byte for byte. */
const contents = (store: Store) =>
  Object.fromEntries(
    Object.entries(store.tables).map(([name, table]) => [name, [...table.all()].map((r) => JSON.stringify(r))]),
  )

/** A commit whose line passes the characters past which the journal makes it as bytes (journal-frames.ts). */
const large = fc
  .tuple(fc.oneof(push, plain), id)
  .map(([changes, key]): Change[] => [
    ...changes,
    ['claims', `big_${key}`, record(`big_${key}`, {note: `é😀${'x'.repeat(70_000)}${key}`}, {}) as never],
  ])

/** Commits `commits`, then reopens a copy of the dir as a killed server leaves it, after `before` ran. */
async function reopenedAfter(commits: Change[][], before: (store: Store) => Promise<void> = async () => {}) {
  const dir = await makeTempDir()
  const store = await Store.open({dir})
  try {
    for (const changes of commits) await store.commit(changes)
    await before(store)
    // a killed server's dir: no lock
    const copy = await makeTempDir()
    await cp(dir, copy, {recursive: true, filter: (source) => !source.endsWith('.lock')})
    const reopened = await Store.open({dir: copy})
    cleanup.push(() => reopened.close())
    return {store: contents(store), reopened: contents(reopened)}
  } finally {
    await store.close()
  }
}

describe('the journal, written then read', () => {
  it('gives back every record of any changes, byte for byte, after a kill', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(push, plain), {minLength: 1, maxLength: 8}), async (commits) => {
        // the journal alone, no compaction
        const {store, reopened} = await reopenedAfter(commits)
        expect(reopened).toEqual(store)
      }),
      {numRuns: 40},
    )
  })

  it('gives back every record of lines made as bytes, after a kill and after a compaction', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(large, push), {minLength: 1, maxLength: 4}), async (commits) => {
        const killed = await reopenedAfter(commits)
        expect(killed.reopened).toEqual(killed.store)
        // the chunks of events and deliveries copy their bytes from these lines (journal-spans.ts); a place that
        // were wrong would be serialized instead, so where each lies is pinned by the line's own test below
        const compacted = await reopenedAfter(commits, (store) => store.compact())
        expect(compacted.reopened).toEqual(compacted.store)
      }),
      {numRuns: 15},
    )
  })
})

/** A put of a record of any fields, or a deletion. */
const frame = fc.oneof(
  fields.map((record): FrameText => ({
    kind: 'put',
    collection: 'claims',
    id: 'clm_1',
    body: JSON.stringify(record),
    record,
  })),
  id.map((key): FrameText => ({kind: 'del', collection: 'checks', id: key, body: ''})),
)

/** A put of a large restore's size, with characters of two, three and four bytes. */
const big = {note: `é€😀${'x'.repeat(70_000)}`}
const bigFrame: FrameText = {kind: 'put', collection: 'events', id: 'evt_big', body: JSON.stringify(big), record: big}

describe('a journal line', () => {
  it('reads back as written, each put placed at its JSON, short or past 64 Ki characters of 1 to 4 bytes', () => {
    fc.assert(
      fc.property(fc.array(frame, {minLength: 1, maxLength: 6}), fc.boolean(), (frames, large) => {
        const all = large ? [bigFrame, ...frames, bigFrame] : frames
        const {line, bytes, placed} = writeLine(42, all)
        expect(line.length).toBe(bytes)
        expect(line.at(-1)).toBe(0x0a)
        const read = readLine(line.subarray(0, -1))
        if (typeof read === 'string') throw new Error(read)
        expect(read.seq).toBe(42)
        expect(read.frames.map(({body, ...rest}) => ({...rest, body: body.toString()}))).toEqual(
          all.map(({kind, collection, id, body}) => ({kind, collection, id, body})),
        )
        expect(placed).toHaveLength(all.filter((f) => f.record).length)
        for (const place of placed)
          expect(line.toString('utf8', place.offset, place.offset + place.length)).toBe(place.json)
      }),
      {numRuns: 60},
    )
  })
})
