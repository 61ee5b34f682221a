import {type H3Event, setResponseHeader} from 'h3'
import {renderCheck} from '../../domain/check.js'
import type {CheckRecord} from '../../domain/records.js'
import type {Check} from '../../domain/schemas.js'
import {jsonText} from '../../store/json-text.js'
import {notesOf} from './traffic.js'

// Keyed by the record, which never changes in place: a replayed push, or a
// GET, answers with the bytes made the first time that version was read.
const answers = new WeakMap<CheckRecord, string>()

/**
 * The check resource of `record` as the JSON answer, serialized once per
 * record. `fresh` is the rendering of a version the request itself made (a
 * push that changed the check): it is answered with the text its events'
 * journal line made (store/json-text.ts) and not kept, since most versions
 * are replaced by the next push before anyone reads them; keeping each one
 * cost a changing push about 2 us and garbage collection work
 * (docs/benchmarks.md). The first read of a version keeps its text.
 *
 * @example
 * return checkAnswer(event, record, app.baseUrl)
 */
export function checkAnswer(event: H3Event, record: CheckRecord, baseUrl: string, fresh?: Check): string {
  let text = answers.get(record)
  if (text === undefined) {
    if (fresh) text = jsonText(fresh)
    else answers.set(record, (text = JSON.stringify(renderCheck(record, baseUrl))))
  }
  setResponseHeader(event, 'content-type', 'application/json')
  // the request log's entry names the check by the record's own id, not a copy cut from the answer (docs/benchmarks.md, "What a replay keeps")
  const notes = notesOf(event)
  if (notes && !notes.check_id) notes.check_id = record.id
  return text
}
