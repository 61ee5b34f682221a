import {cp} from 'node:fs/promises'
import fc from 'fast-check'
import {afterEach, describe, expect, it} from 'vitest'
import type {CollectionName} from '../../src/domain/records.js'
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

/** A record put whole, or deleted, in one of the collections a test may fill freely. */
const plain = fc
  .record({
    collection: fc.constantFrom<CollectionName>('claims', 'payments', 'events', 'deliveries'),
    key: id,
    extra: fields,
    deleted: fc.boolean(),
  })
  .map(({collection, key, extra, deleted}): Change[] => [
    [
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

describe('the journal, written then read', () => {
  it('gives back every record of any changes, byte for byte, after a kill', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(push, plain), {minLength: 1, maxLength: 8}), async (commits) => {
        const dir = await makeTempDir()
        const store = await Store.open({dir})
        try {
          for (const changes of commits) await store.commit(changes)
          // a killed server's dir: the journal alone, no compaction, no lock
          const copy = await makeTempDir()
          await cp(dir, copy, {recursive: true, filter: (source) => !source.endsWith('.lock')})
          const reopened = await Store.open({dir: copy})
          cleanup.push(() => reopened.close())
          expect(contents(reopened)).toEqual(contents(store))
        } finally {
          await store.close()
        }
      }),
      {numRuns: 40},
    )
  })
})
