/**
 * The JSON text of each stored record, made once. The journal writes a
 * record's text when it is committed, and every compaction writes the text of
 * every record again: without this, a record was serialized at each of them.
 * Records are never changed in place, so a record's text stays true; keyed
 * weakly, a text goes when its record is replaced or deleted.
 */
const texts = new WeakMap<object, string>()

/**
 * `JSON.stringify(record)`, remembered for the object.
 *
 * @example
 * recordJson(check) === recordJson(check) // one serialization
 */
export function recordJson(record: object): string {
  let text = texts.get(record)
  if (text === undefined) {
    text = JSON.stringify(record)
    texts.set(record, text)
  }
  return text
}
