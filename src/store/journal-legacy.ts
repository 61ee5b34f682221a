import {crc32} from 'node:zlib'
import {dataOf, decodeCopy, isCopy} from './journal-copies.js'
import type {Frame} from './journal-frames.js'
import {decodeRun, isRun} from './journal-runs.js'
import type {JournalChange} from './journal-changes.js'

/**
 * The journal lines of earlier versions, one JSON object each:
 * `{"seq":N,"changes":[…],"crc":C}`, `crc` the CRC-32 of the text before
 * `,"crc":` (absent in the first versions). A start reads them only to
 * migrate a data dir: it replays them as the frames they stand for, then
 * rewrites the documents and drops them (docs/storage.md, "Files").
 */

const CRC = ',"crc":'
const DIGITS = /^\d{1,10}$/

const isChange = (c: unknown): c is JournalChange =>
  Array.isArray(c) && c.length === 3 && typeof c[0] === 'string' && typeof c[1] === 'string' && typeof c[2] === 'object'

/**
 * The changes an earlier line holds, its short forms expanded into the
 * records they were written from, or undefined when an item is none of the
 * three forms (a put, a run, a copy).
 */
function decodeChanges(items: unknown): JournalChange[] | undefined {
  if (!Array.isArray(items)) return undefined
  const changes: JournalChange[] = []
  for (const item of items) {
    if (isChange(item)) {
      changes.push(item)
    } else if (isRun(item)) {
      // one by one: a run may hold more rows than a call takes arguments
      for (const change of decodeRun(item)) changes.push(change)
    } else if (isCopy(item)) {
      const data = dataOf(items[item[2]])
      const record = data && decodeCopy(item[3], data)
      if (!record) return undefined
      changes.push([item[0], item[1], record])
    } else {
      return undefined
    }
  }
  return changes
}

/**
 * An earlier line's seq and its changes as frames, or what is wrong with
 * it. A line without a checksum is taken only while `unchecked` (no line
 * before it had one).
 *
 * @example
 * readLegacyLine(Buffer.from('{"seq":1,"changes":[["checks","chk_1",null]]}'), true)
 * // {seq: 1, checksummed: false, frames: [{kind: 'del', collection: 'checks', id: 'chk_1', body: <empty>}]}
 */
export function readLegacyLine(
  bytes: Buffer,
  unchecked: boolean,
): {seq: number; frames: Frame[]; checksummed: boolean} | string {
  const text = bytes.toString()
  const at = text.lastIndexOf(CRC)
  const digits = at === -1 ? '' : text.slice(at + CRC.length, -1)
  const checksummed = text.endsWith('}') && DIGITS.test(digits)
  if (checksummed && crc32(text.slice(0, at)) !== Number(digits)) {
    return 'its checksum does not match (the line was changed or garbled)'
  }
  if (!checksummed && !unchecked) return 'it has no checksum, while lines before it have one'
  let parsed: {seq?: unknown; changes?: unknown} | null
  try {
    parsed = JSON.parse(text) as typeof parsed
  } catch (error) {
    return (error as Error).message
  }
  const changes = decodeChanges(parsed?.changes)
  if (!Number.isInteger(parsed?.seq) || !changes) return 'it is not a journal entry'
  const frames = changes.map(([collection, id, record]): Frame => {
    if (record === null) return {kind: 'del', collection, id, body: Buffer.alloc(0)}
    return {kind: 'put', collection, id, body: Buffer.from(JSON.stringify(record))}
  })
  return {seq: parsed!.seq as number, frames, checksummed}
}
