import {holds, JSON_BYTE, plainString} from './bytes.js'
import {type Copy, isCopy} from './journal-copies.js'
import {Unread} from './unread.js'

/**
 * A push's journal line as a start reads it: its check as a copy of its
 * event's data, its event unparsed (unread.ts), and the deliveries the
 * event made (one to each endpoint that takes it), unparsed too. A restart
 * after a kill replays tens of thousands of them, each a third check and
 * two thirds event, and most checks change again later in the same
 * journal: only the last version of each is built, from its event's data,
 * once the whole journal is read (docs/storage.md, "Read on demand").
 */
export interface PushLine {
  seq: number
  /** `[collection, id, source, fields]` (journal-copies.ts), its source the event. */
  check: Copy
  event: Unread
  deliveries: Unread[]
}

/** The fields an unread delivery knows (unread.ts): its event, which groups it, and what filters ask, its endpoint and status. */
export const DELIVERY_FIELDS: readonly string[] = ['endpoint_id', 'event_id', 'status']

const SEQ_START = Buffer.from('{"seq":')
const CHANGES_START = Buffer.from(',"changes":[["checks",')
const EVENT_START = Buffer.from('],["events","')
const BODY_END = Buffer.from('}]]')
const NEXT_ITEM = Buffer.from('],["')
const DELIVERIES = Buffer.from('deliveries')
const DELIVERIES_START = Buffer.from(',"changes":[["')

/** A put after the check's, `["events"|"deliveries",ID,{…}]`: its record's bytes, and where the next one begins (-1: none). */
function readPut(bytes: Buffer, at: number, bodyEnd: number): {json: Buffer; id: string; next: number} | undefined {
  // at: the collection's first byte, after `["`
  const collection = plainString(bytes, at, 1)
  if (!collection || bytes[collection.to + 1] !== JSON_BYTE.comma || bytes[collection.to + 2] !== JSON_BYTE.quote)
    return undefined
  const id = plainString(bytes, collection.to + 3, 1)
  if (!id || bytes[id.to + 1] !== JSON_BYTE.comma || bytes[id.to + 2] !== JSON_BYTE.openBrace) return undefined
  const recordStart = id.to + 2
  // a put ends where the next begins, or with the body: NEXT_ITEM is in no record the store writes
  // (no array of arrays), and no JSON string can hold it (its quote would be escaped)
  const found = bytes.indexOf(NEXT_ITEM, recordStart)
  const next = found !== -1 && found < bodyEnd ? found : -1
  const recordEnd = next === -1 ? bodyEnd - BODY_END.length + 1 : next
  if (next === -1 && !holds(bytes, BODY_END, bodyEnd - BODY_END.length)) return undefined
  if (bytes[recordEnd - 1] !== JSON_BYTE.closeBrace) return undefined
  return {json: bytes.subarray(recordStart, recordEnd), id: bytes.toString('utf8', id.from, id.to), next}
}

/** The put's record unparsed, when its bytes begin with the id its put names. */
function unreadOf(put: {json: Buffer; id: string}, fields: readonly string[]): Unread | undefined {
  const unread = Unread.of(put.json, fields)
  return unread?.id === put.id ? unread : undefined
}

/**
 * The line as a push's when its body (`bytes` before `bodyEnd`, where its
 * checksum's field begins) is what the journal writes for one:
 * `{"seq":N,"changes":[["checks",ID,1,FIELDS],["events",EVT,EVENT]…]`,
 * with EVENT an event whose id is EVT, then any number of
 * `["deliveries",DLV,DELIVERY]`. Anything else is undefined, and parsed
 * as any line is. The checksum was checked first: the bytes are the
 * writer's, so what is found here is what it wrote.
 */
export function readPushLine(bytes: Buffer, bodyEnd: number): PushLine | undefined {
  const found = readSeq(bytes, bodyEnd)
  if (!found || !holds(bytes, CHANGES_START, found.at)) return undefined
  const {seq, at} = found
  // the check's item ends where the event's begins: that marker cannot occur inside a JSON string, whose quotes are escaped
  const checkStart = at + CHANGES_START.length - '["checks",'.length
  const eventItem = bytes.indexOf(EVENT_START, checkStart)
  if (eventItem === -1 || eventItem >= bodyEnd) return undefined
  let check: unknown
  try {
    check = JSON.parse(bytes.toString('utf8', checkStart, eventItem + 1))
  } catch {
    // the marker lay inside the copy's fields (one of its own named "events"): the whole line is parsed instead
    return undefined
  }
  if (!isCopy(check) || check[0] !== 'checks' || check[2] !== 1) return undefined
  const put = readPut(bytes, eventItem + NEXT_ITEM.length, bodyEnd)
  const event = put && unreadOf(put, [])
  if (!put || !event) return undefined
  const deliveries = put.next === -1 ? [] : readDeliveries(bytes, put.next + NEXT_ITEM.length, bodyEnd)
  return deliveries && {seq, check, event, deliveries}
}

/**
 * The deliveries put from `at` (a put's collection, after its `["`) to the
 * end of the body, unparsed; undefined when any put there is not one.
 */
function readDeliveries(bytes: Buffer, at: number, bodyEnd: number): Unread[] | undefined {
  const deliveries: Unread[] = []
  for (let collection = at; ;) {
    if (!holds(bytes, DELIVERIES, collection) || bytes[collection + DELIVERIES.length] !== JSON_BYTE.quote)
      return undefined
    const put = readPut(bytes, collection, bodyEnd)
    const delivery = put && unreadOf(put, DELIVERY_FIELDS)
    if (!put || !delivery) return undefined
    deliveries.push(delivery)
    if (put.next === -1) return deliveries
    collection = put.next + NEXT_ITEM.length
  }
}

/**
 * The line as one of deliveries alone, each unparsed, when its body is
 * `{"seq":N,"changes":[["deliveries",DLV,DELIVERY]…]`: what a delivery's
 * attempt writes. A data dir whose endpoints take every event holds as many
 * of these lines as of pushes, or more; a restart after a kill parses none.
 */
export function readDeliveriesLine(bytes: Buffer, bodyEnd: number): {seq: number; deliveries: Unread[]} | undefined {
  const found = readSeq(bytes, bodyEnd)
  if (!found || !holds(bytes, DELIVERIES_START, found.at)) return undefined
  const deliveries = readDeliveries(bytes, found.at + DELIVERIES_START.length, bodyEnd)
  return deliveries && {seq: found.seq, deliveries}
}

/** The line's seq, and where what follows it begins. */
function readSeq(bytes: Buffer, bodyEnd: number): {seq: number; at: number} | undefined {
  if (!holds(bytes, SEQ_START, 0)) return undefined
  let at = SEQ_START.length
  let seq = 0
  for (; at < bodyEnd && bytes[at]! >= JSON_BYTE.digit0 && bytes[at]! <= JSON_BYTE.digit9; at++)
    seq = seq * 10 + bytes[at]! - JSON_BYTE.digit0
  return at === SEQ_START.length ? undefined : {seq, at}
}
