import {type H3Event, setResponseHeader} from 'h3'
import {renderCheck} from '../../domain/check.js'
import type {CheckRecord} from '../../domain/records.js'
import type {Check} from '../../domain/schemas.js'
import {jsonText} from '../../store/json-text.js'

// Keyed by the record, which never changes in place: a replayed push, or a
// GET, answers with the bytes made the first time that version was shown.
const answers = new WeakMap<CheckRecord, string>()

/**
 * The check resource of `record` as the JSON answer, serialized once per
 * record. `resource` is the rendering the caller has already, if any: the
 * data of a push's events, whose text the journal line made already.
 *
 * @example
 * return checkAnswer(event, record, app.baseUrl)
 */
export function checkAnswer(event: H3Event, record: CheckRecord, baseUrl: string, resource?: Check): string {
  let text = answers.get(record)
  if (text === undefined) {
    text = resource ? jsonText(resource) : JSON.stringify(renderCheck(record, baseUrl))
    answers.set(record, text)
  }
  setResponseHeader(event, 'content-type', 'application/json')
  return text
}
