import {appendFile, cp, readdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {crc32} from 'node:zlib'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {fanOut} from '../../src/domain/deliveries.js'
import {applyPush} from '../../src/domain/push.js'
import type {CheckRecord, EventRecord, WebhookEndpointRecord} from '../../src/domain/records.js'
import type {CheckPush} from '../../src/domain/schemas.js'
import {type Change, put, Store} from '../../src/store/store.js'
import {Unread} from '../../src/store/unread.js'
import {makeTempDir} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function openStore(dir: string) {
  const store = await Store.open({dir})
  cleanup.push(() => store.close())
  return store
}

const event = {
  id: 'evt_1',
  object: 'event',
  type: 'check.updated',
  created_at: '2026-01-01T00:00:00.000Z',
  account_id: 'acct_1',
} as unknown as EventRecord
const endpoint = (i: number) =>
  ({id: `we_${i}`, status: 'enabled', event_types: ['check.updated']}) as unknown as WebhookEndpointRecord

/** What a push to `count` endpoints commits: its event and a delivery to each endpoint, made by the real fan-out. */
function pushChanges(count: number) {
  const endpoints = Array.from({length: count}, (_, i) => endpoint(i))
  const {deliveries} = fanOut(event, endpoints, Date.parse('2026-01-01T00:00:05.000Z'))
  return {deliveries, changes: [put('events', event.id, event), ...deliveries.map((d) => put('deliveries', d.id, d))]}
}

/** The dir as a process killed now leaves it: journal only, no compaction, no lock. */
async function killedCopy(dir: string): Promise<string> {
  const copy = await makeTempDir()
  await cp(dir, copy, {recursive: true, filter: (source) => !source.endsWith('.lock')})
  return copy
}

const segmentOf = async (dir: string) =>
  join(
    dir,
    (await readdir(dir)).find((f) => f.startsWith('journal.'))!,
  )

/** A journal line with its checksum, as the store writes one. */
const checksummed = (body: string) => `${body},"crc":${crc32(body)}}\n`

describe('the journal short form for alike records', () => {
  it('writes 100 deliveries in a fraction of their JSON; a reopen after a kill restores the same records', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    const {deliveries, changes} = pushChanges(100)
    await store.commit(changes)
    const copy = await killedCopy(dir)
    await store.close()
    const line = await readFile(await segmentOf(copy), 'utf8')
    expect(line.length).toBeLessThan(JSON.stringify(changes).length / 3)
    const recovered = await openStore(copy)
    const replayed = recovered.tables.deliveries.idsOf('acct_1').map((id) => recovered.tables.deliveries.get(id))
    // the same records, field for field and in the same field order, in the order they were made
    expect(JSON.stringify(replayed)).toBe(JSON.stringify(deliveries))
    expect(recovered.tables.events.get('evt_1')).toEqual(event)
  })

  it('replays records with other fields, undefined fields or a "__proto__" field as they were', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    const {changes} = pushChanges(6)
    const odd = [
      {...(changes[3]![2] as object), id: 'dlv_odd1', extra: 1},
      {...(changes[4]![2] as object), id: 'dlv_odd2', next_attempt_at: undefined},
      // a run of its own
      ...[3, 4, 5, 6].map((i) => JSON.parse(`{"id":"dlv_odd${i}","account_id":"acct_1","__proto__":{"bad":1}}`)),
    ]
    const all = [...changes, ...odd.map((record) => put('deliveries', record.id, record))]
    await store.commit(all)
    const recovered = await openStore(await killedCopy(dir))
    for (const [, id, record] of all.slice(1)) {
      expect(JSON.stringify(recovered.tables.deliveries.get(id))).toBe(JSON.stringify(record))
    }
    const proto = recovered.tables.deliveries.get('dlv_odd6') as unknown as Record<string, unknown>
    expect(Object.hasOwn(proto, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).bad).toBeUndefined()
    await store.close()
  })

  it('a run line garbled inside a row is refused: its checksum no longer matches', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    const {deliveries, changes} = pushChanges(10)
    await store.commit(changes)
    const copy = await killedCopy(dir)
    await store.close()
    const segment = await segmentOf(copy)
    const text = await readFile(segment, 'utf8')
    // a row names the delivery and the one field that differs: its endpoint
    expect(text).toContain(`["${deliveries[4]!.id}","we_4"]`)
    await writeFile(segment, text.replace('"we_4"', '"we_5"'))
    await expect(Store.open({dir: copy})).rejects.toThrow(`${segment} line 1 is corrupt: its checksum does not match`)
  })

  it('a run line with a valid checksum but a row that does not fit its template is refused', async () => {
    const dir = await makeTempDir()
    const run = `["deliveries",{"id":"dlv_1","account_id":"acct_1"},["id"],[["dlv_1"],["dlv_2","x"]]]`
    const body = `{"seq":1,"changes":[${run}]`
    await writeFile(join(dir, 'journal.000000000001.ndjson'), checksummed(body))
    await expect(Store.open({dir})).rejects.toThrow(/line 1 is corrupt: it is not a journal entry/)
  })

  it('a torn run line at the end of the journal is dropped, and the changes before it kept', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    await store.commit(pushChanges(10).changes)
    const copy = await killedCopy(dir)
    await store.close()
    const segment = await segmentOf(copy)
    const line = (await readFile(segment, 'utf8')).replace('"seq":1', '"seq":2')
    await appendFile(segment, line.slice(0, line.length / 2))
    const recovered = await openStore(copy)
    expect(recovered.tables.deliveries.size).toBe(10)
  })
})

/** What a push of `body` commits, made by the real push rule: its check, then its events. */
function checkPush(body: CheckPush, existing?: CheckRecord) {
  const outcome = applyPush({
    accountId: 'acct_1',
    externalId: 't1',
    body,
    locations: [{id: 'loc_1', object: 'location', name: 'Main', account_id: 'acct_1'} as never],
    existing,
    now: '2026-01-01T12:00:00.000Z',
    baseUrl: 'http://x',
  })
  const changes = [put('checks', outcome.check.id, outcome.check), ...outcome.events.map((e) => put('events', e.id, e))]
  return {check: outcome.check, changes}
}

const body: CheckPush = {
  table: {number: '4'},
  status: 'open',
  items: [{external_id: 'l1', name: 'Soup', quantity: 2, price_cents: 700, note: 'no salt'}],
  totals: {subtotal_cents: 1400, tax_cents: 140, total_cents: 1540},
} as CheckPush

describe("the journal short form for a record that repeats an event's data", () => {
  it("writes a push's check as a copy of its event's resource; a reopen after a kill restores the same record", async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    const created = checkPush(body)
    const updated = checkPush({...body, version: 2, status: 'closed'} as CheckPush, created.check)
    await store.commit(created.changes)
    await store.commit(updated.changes)
    const copy = await killedCopy(dir)
    await store.close()
    const lines = (await readFile(await segmentOf(copy), 'utf8')).trim().split('\n')
    const pushes = [created, updated]
    for (const [i, line] of lines.entries()) {
      // the check's own fields, and the names of those an event's resource gives it: its items are written by its events alone
      expect(line).toMatch(new RegExp(` copy checks \\d+:"${created.check.id}" \\d+:\\[\\d,\\["id","object",`))
      expect(line).toContain(`["guest_token","${created.check.guest_token}"]`)
      expect(line.split('"Soup"')).toHaveLength(pushes[i]!.changes.length)
    }
    const recovered = await openStore(copy)
    // the same record, field for field and in the same field order
    expect(JSON.stringify(recovered.tables.checks.get(created.check.id))).toBe(JSON.stringify(updated.check))
    expect(recovered.tables.events.size).toBe(updated.changes.length - 1 + created.changes.length - 1)
  })

  it('writes a field that is not the very value of the data as its own, and one sharing too little plainly', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    const {check, changes} = checkPush(body)
    // equal JSON, but another array: only the very same value may come from the data
    const apart = {...check, items: structuredClone(check.items)}
    const [event] = changes.slice(1)
    const other = {id: 'chk_other', account_id: 'acct_1', object: 'check', note: 'mostly its own'}
    const otherEvent = {...(event![2] as EventRecord), id: 'evt_other', data: {id: 'chk_other', object: 'check'}}
    await store.commit([
      put('checks', check.id, apart),
      event!,
      put('checks', other.id, other as never),
      put('events', otherEvent.id, otherEvent),
    ])
    const copy = await killedCopy(dir)
    await store.close()
    const line = await readFile(await segmentOf(copy), 'utf8')
    expect(line).toContain(`"version",["items",[{"external_id":"l1","name":"Soup"`)
    expect(line).toMatch(/ put checks 11:"chk_other" \d+:\{"id":"chk_other",/)
    const recovered = await openStore(copy)
    expect(JSON.stringify(recovered.tables.checks.get(check.id))).toBe(JSON.stringify(apart))
    expect(JSON.stringify(recovered.tables.checks.get(other.id))).toBe(JSON.stringify(other))
  })

  it('replays a copy\'s "__proto__" field, its own or the data\'s, as a field, not as the prototype', async () => {
    const dir = await makeTempDir()
    const check = `["checks","chk_1",1,["id",["__proto__",{"bad":1}],["account_id","acct_1"]]]`
    const shared = `["checks","chk_2",3,["id","__proto__",["account_id","acct_1"]]]`
    const event = (id: string) =>
      `["events","evt_${id}",{"id":"evt_${id}","account_id":"acct_1","data":{"id":"chk_${id}","__proto__":{"bad":2}}}]`
    const line = `{"seq":1,"changes":[${check},${event('1')},${shared},${event('2')}]`
    await writeFile(join(dir, 'journal.000000000001.ndjson'), checksummed(line))
    const store = await openStore(dir)
    const replayed = [store.tables.checks.get('chk_1'), store.tables.checks.get('chk_2')]
    expect(JSON.stringify(replayed)).toBe(
      '[{"id":"chk_1","__proto__":{"bad":1},"account_id":"acct_1"},{"id":"chk_2","__proto__":{"bad":2},"account_id":"acct_1"}]',
    )
    for (const record of replayed) expect(Object.getPrototypeOf(record)).toBe(Object.prototype)
  })

  it('a copy with a valid checksum whose source is not a put with data is refused', async () => {
    const dir = await makeTempDir()
    const check = `["checks","chk_1",1,["id",["account_id","acct_1"]]]`
    const other = `["checks","chk_2",{"id":"chk_2","account_id":"acct_1"}]`
    await writeFile(join(dir, 'journal.000000000001.ndjson'), checksummed(`{"seq":1,"changes":[${check},${other}]`))
    await expect(Store.open({dir})).rejects.toThrow(/line 1 is corrupt: it is not a journal entry/)
  })

  it('a copy naming a field its source lacks is refused', async () => {
    const dir = await makeTempDir()
    const check = `["checks","chk_1",1,["id","table",["account_id","acct_1"]]]`
    const event = `["events","evt_1",{"id":"evt_1","account_id":"acct_1","data":{"id":"chk_1"}}]`
    await writeFile(join(dir, 'journal.000000000001.ndjson'), checksummed(`{"seq":1,"changes":[${check},${event}]`))
    await expect(Store.open({dir})).rejects.toThrow(/line 1 is corrupt: it is not a journal entry/)
  })
})

describe("a start after a kill reads a push's line without parsing its event", () => {
  /** A push of `externalId` at `version`, after `existing`: its changes, as the service commits them. */
  function pushOf(externalId: string, version: number, existing?: CheckRecord) {
    const outcome = applyPush({
      accountId: 'acct_1',
      externalId,
      body: {...body, version, items: [{...body.items[0]!, quantity: version}]} as CheckPush,
      locations: [{id: 'loc_1', object: 'location', name: 'Main', account_id: 'acct_1'} as never],
      existing,
      now: `2026-01-01T12:00:0${version}.000Z`,
      baseUrl: 'http://x',
    })
    const changes = [
      put('checks', outcome.check.id, outcome.check),
      ...outcome.events.map((e) => put('events', e.id, e)),
    ]
    return {check: outcome.check, changes}
  }

  /** Opens a store on `dir` while `spy` watches, and the calls it saw. */
  async function openWatched(dir: string, spy: {mock: {calls: unknown[][]}; mockRestore(): void}) {
    try {
      return {store: await openStore(dir), calls: [...spy.mock.calls]}
    } finally {
      spy.mockRestore()
    }
  }

  /** Every check and event `store` holds, in its account's order, as JSON: what a replay must restore exactly. */
  const contents = (store: Store) =>
    (['checks', 'events'] as const).map((name) => {
      const table = store.tables[name]
      return table.idsOf('acct_1').map((id) => JSON.stringify(table.get(id)))
    })

  it('builds each check once, from its last line, and restores every check and event as they were, in order', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    let [a, b, d] = [pushOf('a', 1), pushOf('b', 1), pushOf('d', 1)]
    for (const push of [a, b, d]) await store.commit(push.changes)
    await store.compact()
    // after the compaction, in the journal only: new versions, a check created, a whole record, deletes
    const lines: Change[][] = []
    for (const version of [2, 3]) {
      a = pushOf('a', version, a.check)
      lines.push(a.changes)
    }
    b = pushOf('b', 2, b.check)
    lines.push(b.changes)
    let c = pushOf('c', 1)
    lines.push(c.changes)
    // a check put whole after c was created in a push's line: c keeps the place before it
    const f = pushOf('f', 1)
    lines.push([put('checks', f.check.id, f.check)])
    c = pushOf('c', 2, c.check)
    lines.push(c.changes)
    d = pushOf('d', 2, d.check)
    lines.push(d.changes)
    // a claim's whole record of b, and d deleted (a reset), after their pushes; an event deleted (retention)
    lines.push([put('checks', b.check.id, {...b.check, amount_paid_cents: 100})])
    lines.push([['checks', d.check.id, null]])
    lines.push([['events', a.changes[1]![1], null]])
    for (const changes of lines) await store.commit(changes)
    const copy = await killedCopy(dir)
    const {store: recovered, calls} = await openWatched(copy, vi.spyOn(Unread.prototype, 'read'))
    // f put whole has every check stored first: a's, b's and c's lines so far, one each; then c's second;
    // d's second line and b's were replaced later
    expect(calls).toHaveLength(4)
    expect(contents(recovered)).toEqual(contents(store))
    expect(recovered.tables.checks.get(d.check.id)).toBeUndefined()
    expect(JSON.stringify(recovered.tables.checks.get(a.check.id))).toBe(JSON.stringify(a.check))
    await store.close()
  })

  it("parses no check of the document that a push's line changes, and keeps every check's place", async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    const b = pushOf('b', 1)
    let [a, c] = [pushOf('a', 1), pushOf('c', 1)]
    for (const push of [a, b, c]) await store.commit(push.changes)
    await store.compact()
    // after the compaction, pushes only: a and c changed, e created and changed; b is only in the document
    a = pushOf('a', 2, a.check)
    let e = pushOf('e', 1)
    c = pushOf('c', 2, c.check)
    e = pushOf('e', 2, e.check)
    for (const push of [a, e, c, e]) await store.commit(push.changes)
    const copy = await killedCopy(dir)
    const {store: recovered, calls} = await openWatched(copy, vi.spyOn(JSON, 'parse'))
    const checksParsed = calls.filter(([text]) => String(text).startsWith('{"id":"chk_'))
    expect(checksParsed.map(([text]) => JSON.stringify(JSON.parse(String(text)).external_id))).toEqual(['"b"'])
    expect(contents(recovered)).toEqual(contents(store))
    expect(recovered.tables.checks.idsOf('acct_1')).toEqual([a, b, c, e].map((push) => push.check.id))
    expect(JSON.stringify(recovered.tables.checks.get(e.check.id))).toBe(JSON.stringify(e.check))
    await store.close()
  })

  /** Rewrites the journal line `index` (negative: from the end) so its check's copy names a field its event lacks, its checksum valid. */
  async function breakCopy(dir: string, index: number) {
    const segment = await segmentOf(dir)
    const lines = (await readFile(segment, 'utf8')).trim().split('\n')
    const at = index < 0 ? lines.length + index : index
    // a framed line (journal-frames.ts): the copy's body grows by the field, and the checksum covers what follows it
    const rest = lines[at]!.slice(lines[at]!.indexOf(' ') + 1)
    const missing = '"missing",'
    const edited = rest.replace(
      / copy checks (\d+:"chk_\w+") (\d+):\[1,\[/,
      (_, id: string, length: string) => ` copy checks ${id} ${Number(length) + missing.length}:[1,[${missing}`,
    )
    lines[at] = `${crc32(edited)} ${edited}`
    await writeFile(segment, lines.join('\n') + '\n')
    return at + 1
  }

  it("a document check whose last push's line does not build keeps its document version under --repair", async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    const [a, b] = [pushOf('a', 1), pushOf('b', 1)]
    for (const push of [a, b]) await store.commit(push.changes)
    await store.compact()
    await store.commit(pushOf('a', 2, a.check).changes)
    const copy = await killedCopy(dir)
    await store.close()
    const line = await breakCopy(copy, -1)
    await expect(Store.open({dir: copy})).rejects.toThrow(`line ${line} is corrupt: it is not a journal entry`)
    const repaired = await Store.open({dir: copy, repair: true})
    cleanup.push(() => repaired.close())
    expect(repaired.tables.checks.idsOf('acct_1')).toEqual([a.check.id, b.check.id])
    expect(JSON.stringify(repaired.tables.checks.get(a.check.id))).toBe(JSON.stringify(a.check))
  })

  it('a check new to the journal whose first line does not build refuses the start, though a later line builds', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    await store.commit(pushOf('b', 1).changes)
    await store.compact()
    const c = pushOf('c', 1)
    await store.commit(c.changes)
    await store.commit(pushOf('c', 2, c.check).changes)
    const copy = await killedCopy(dir)
    await store.close()
    const line = await breakCopy(copy, -2)
    await expect(Store.open({dir: copy})).rejects.toThrow(`line ${line} is corrupt: it is not a journal entry`)
  })

  it('a checks document whose records do not begin with their id is parsed whole, as before', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    const a = pushOf('a', 1)
    const b = pushOf('b', 1)
    // a's record laid out with its id last: its bytes do not say which check they are
    const {id, ...fields} = a.check
    await store.commit([put('checks', id, {...fields, id} as CheckRecord), ...a.changes.slice(1)])
    await store.commit(b.changes)
    await store.compact()
    const b2 = pushOf('b', 2, b.check)
    await store.commit(b2.changes)
    const recovered = await openStore(await killedCopy(dir))
    expect(contents(recovered)).toEqual(contents(store))
    expect(recovered.tables.checks.idsOf('acct_1')).toEqual([id, b.check.id])
    await store.close()
  })

  /** A push of `externalId` after `existing` with a delivery of its event to each of `endpoints` endpoints, as the service commits it. */
  function pushWithDeliveries(externalId: string, version: number, endpoints: number, existing?: CheckRecord) {
    const push = pushOf(externalId, version, existing)
    const made = push.changes[1]![2] as EventRecord
    const to = Array.from({length: endpoints}, (_, i) => ({...endpoint(i), event_types: [made.type]}))
    const {deliveries} = fanOut(made, to, Date.parse('2026-01-01T12:00:05.000Z'))
    return {...push, deliveries, changes: [...push.changes, ...deliveries.map((d) => put('deliveries', d.id, d))]}
  }

  /** How many of the texts JSON.parse was called with begin with `prefix`: `{"seq":` counts the lines parsed whole (none is, framed). */
  const parsedWith = (calls: unknown[][], prefix: string) =>
    calls.filter(([text]) => String(text).startsWith(prefix)).length

  /** The deliveries `store` holds, in order, as JSON. */
  const deliveriesOf = (store: Store) =>
    JSON.stringify(store.tables.deliveries.idsOf('acct_1').map((id) => store.tables.deliveries.get(id)))

  it("a push's line with deliveries after its event is read without parsing: they stay unread, and the checks still wait", async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    const [a, b] = [pushWithDeliveries('a', 1, 2), pushWithDeliveries('b', 1, 2)]
    for (const push of [a, b]) await store.commit(push.changes)
    await store.compact()
    const a2 = pushWithDeliveries('a', 2, 2, a.check)
    expect(a2.deliveries).toHaveLength(2)
    await store.commit(a2.changes)
    // an attempt's line: the delivery alone, as the worker records it
    const [first] = a2.deliveries
    await store.commit([put('deliveries', first!.id, {...first!, status: 'succeeded', next_attempt_at: null})])
    const copy = await killedCopy(dir)
    const {store: recovered, calls} = await openWatched(copy, vi.spyOn(JSON, 'parse'))
    // no line parsed whole, no delivery parsed, and of the document's checks only b's, which no line changes
    const parsed = ['{"seq":', '{"id":"dlv_', '{"id":"chk_'].map((prefix) => parsedWith(calls, prefix))
    expect(parsed).toEqual([0, 0, 1])
    // each knows its event and status unparsed: grouped by its event, and only the pending ones parsed to be listed
    const pending = [...store.tables.deliveries.all({status: 'pending'})].map((d) => d.id)
    expect(pending).toHaveLength(5)
    const read = vi.spyOn(Unread.prototype, 'read')
    try {
      expect(recovered.tables.deliveries.groupIds(first!.event_id)).toEqual(a2.deliveries.map((d) => d.id))
      expect([...recovered.tables.deliveries.all({status: 'pending'})].map((d) => d.id)).toEqual(pending)
      expect(read).toHaveBeenCalledTimes(pending.length)
    } finally {
      read.mockRestore()
    }
    expect(deliveriesOf(recovered)).toBe(deliveriesOf(store))
    expect(contents(recovered)).toEqual(contents(store))
    await store.close()
  })

  it("an attempt's line whose delivery does not tell its status first has it parsed, and replays the same record", async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    const push = pushWithDeliveries('a', 1, 1)
    await store.commit(push.changes)
    const {status, ...rest} = push.deliveries[0]!
    // its status after its attempts: not among the plain strings that lead it
    await store.commit([
      put('deliveries', rest.id, {...rest, attempts: [], status: 'dead'} as (typeof push.deliveries)[0]),
    ])
    const copy = await killedCopy(dir)
    const {store: recovered, calls} = await openWatched(copy, vi.spyOn(JSON, 'parse'))
    expect(status).toBe('pending')
    expect(parsedWith(calls, `{"id":"${rest.id}"`)).toBe(1)
    expect(deliveriesOf(recovered)).toBe(deliveriesOf(store))
    expect([...recovered.tables.deliveries.all({status: 'dead'})]).toHaveLength(1)
    await store.close()
  })

  it("a push's line whose deliveries are written as a run has the run parsed, and replays the same records", async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    const push = pushWithDeliveries('a', 1, 5)
    await store.commit(push.changes)
    const copy = await killedCopy(dir)
    const {store: recovered, calls} = await openWatched(copy, vi.spyOn(JSON, 'parse'))
    // a run's body: its template, the fields that vary, its rows
    expect(parsedWith(calls, '[{"id":"dlv_')).toBe(1)
    expect(deliveriesOf(recovered)).toBe(deliveriesOf(store))
    expect(recovered.tables.deliveries.size).toBe(5)
    expect(contents(recovered)).toEqual(contents(store))
    await store.close()
  })

  it("a push's line whose copy does not fit its event refuses the start, naming the line, as any line does", async () => {
    const dir = await makeTempDir()
    const check = `["checks","chk_1",1,["id","table",["account_id","acct_1"]]]`
    const event = `["events","evt_1",{"id":"evt_1","data":{"id":"chk_1"},"account_id":"acct_1"}]`
    await writeFile(join(dir, 'journal.000000000001.ndjson'), checksummed(`{"seq":1,"changes":[${check},${event}]`))
    await expect(Store.open({dir})).rejects.toThrow(/line 1 is corrupt: it is not a journal entry/)
  })
})
