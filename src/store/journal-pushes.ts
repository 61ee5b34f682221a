import {holds, JSON_BYTE, plainString} from './bytes.js'
import {type Copy, isCopy} from './journal-copies.js'
import {Unread} from './unread.js'

/**
 * A push's journal line as a start reads it: its check as a copy of its
 * event's data, and its event unparsed (unread.ts). A restart after a kill
 * replays tens of thousands of them, each a third check and two thirds
 * event, and most checks change again later in the same journal: only the
 * last version of each is built, from its event's data, once the whole
 * journal is read (docs/storage.md, "Read on demand").
 */
export interface PushLine {
  seq: number
  /** `[collection, id, source, fields]` (journal-copies.ts), its source the event. */
  check: Copy
  event: Unread
}

const SEQ_START = Buffer.from('{"seq":')
const CHANGES_START = Buffer.from(',"changes":[["checks",')
const EVENT_START = Buffer.from('],["events","')
const EVENT_END = Buffer.from('}]]')
const NEXT_ITEM = Buffer.from('],["')

/**
 * The line as a push's when its body (`bytes` before `bodyEnd`, where its
 * checksum's field begins) is what the journal writes for one:
 * `{"seq":N,"changes":[["checks",ID,1,FIELDS],["events",EVT,EVENT]]`, with
 * EVENT an event whose id is EVT. Anything else is undefined, and parsed
 * as any line is. The checksum was checked first: the bytes are the
 * writer's, so what is found here is what it wrote.
 */
export function readPushLine(bytes: Buffer, bodyEnd: number): PushLine | undefined {
  if (!holds(bytes, SEQ_START, 0)) return undefined
  let at = SEQ_START.length
  let seq = 0
  for (; at < bodyEnd && bytes[at]! >= JSON_BYTE.digit0 && bytes[at]! <= JSON_BYTE.digit9; at++)
    seq = seq * 10 + bytes[at]! - JSON_BYTE.digit0
  if (at === SEQ_START.length || !holds(bytes, CHANGES_START, at)) return undefined
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
  const idStart = eventItem + EVENT_START.length
  const id = plainString(bytes, idStart, 1)
  if (!id || bytes[id.to + 1] !== JSON_BYTE.comma) return undefined
  const idEnd = id.to
  // the body ends with the event's object, its item and the changes, `}]]`, and no other item follows the event's:
  // another would begin with NEXT_ITEM, which no check resource holds (no array of arrays) and no JSON string can
  const eventStart = idEnd + 2
  if (bytes[eventStart] !== JSON_BYTE.openBrace || !holds(bytes, EVENT_END, bodyEnd - EVENT_END.length))
    return undefined
  const next = bytes.indexOf(NEXT_ITEM, eventStart)
  if (next !== -1 && next < bodyEnd) return undefined
  const event = Unread.of(bytes.subarray(eventStart, bodyEnd - 2))
  if (!event || event.id !== bytes.toString('utf8', idStart, idEnd)) return undefined
  return {seq, check, event}
}
