import {holds, JSON_BYTE, leadingId, plainString} from './bytes.js'

const ACCOUNT_START = Buffer.from(',"account_id":"')
const COLON = 0x3a

/** The fields an unread record knows besides its id and account: none, for a table that asks for none (events). */
const NONE: Readonly<Record<string, string>> = Object.freeze({})

/**
 * The last string read for one field, and its bytes: most records of a data
 * dir name one of a few accounts (or statuses, or endpoints), so most reads
 * find the same bytes again and make no new string.
 */
class Recent {
  /** A copy of the last bytes, at the start of a buffer reused while they fit: the bytes read it would keep. */
  #last = Buffer.alloc(64)
  #length = -1
  #text = ''

  of(bytes: Buffer, from: number, to: number): string {
    const length = to - from
    let same = length === this.#length
    for (let i = 0; same && i < length; i++) same = bytes[from + i] === this.#last[i]
    if (same) return this.#text
    if (length > this.#last.length) this.#last = Buffer.alloc(length)
    // byte by byte: Buffer's copy costs more than these few bytes
    for (let i = 0; i < length; i++) this.#last[i] = bytes[from + i]!
    this.#length = length
    this.#text = bytes.toString('utf8', from, to)
    return this.#text
  }
}

const recentAccount = new Recent()

/** Fields a table asks its unread records to know: their names as bytes, and the last value of each. */
interface Wanted {
  names: readonly string[]
  bytes: readonly Buffer[]
  recent: readonly Recent[]
}
const wantedOf = new WeakMap<readonly string[], Wanted>()

function wanted(fields: readonly string[]): Wanted {
  let found = wantedOf.get(fields)
  if (!found) {
    found = {names: fields, bytes: fields.map((f) => Buffer.from(f)), recent: fields.map(() => new Recent())}
    wantedOf.set(fields, found)
  }
  return found
}

/**
 * The values of `fields` among the record's first fields: those after its
 * id whose values are plain strings, up to the first that is not; undefined
 * when one of them is not among those.
 */
function leadingFields(bytes: Buffer, at: number, fields: readonly string[]): Record<string, string> | undefined {
  const {names, bytes: keys, recent} = wanted(fields)
  const found: Record<string, string> = {}
  let count = 0
  while (count < names.length && bytes[at] === JSON_BYTE.comma && bytes[at + 1] === JSON_BYTE.quote) {
    const key = plainString(bytes, at + 2, 1)
    if (!key || bytes[key.to + 1] !== COLON || bytes[key.to + 2] !== JSON_BYTE.quote) break
    const value = plainString(bytes, key.to + 3, 1)
    if (!value) break
    for (let i = 0; i < keys.length; i++) {
      const name = keys[i]!
      if (name.length !== key.to - key.from || !holds(bytes, name, key.from)) continue
      if (!Object.hasOwn(found, names[i]!)) {
        found[names[i]!] = recent[i]!.of(bytes, value.from, value.to)
        count++
      }
      break
    }
    at = value.to + 1
  }
  return count === names.length ? found : undefined
}

/**
 * A record read from a chunk as its JSON bytes, parsed only when something
 * asks for it (docs/storage.md, "Read on demand"). A start reads the
 * 100,000 events a data dir may keep, and parsing them was most of a
 * restart's time (940 ms of a profiled 2.2 s), while most are never read
 * again before retention drops them: kept as bytes, a restart after a
 * clean stop took 1.56–1.65 s instead of 1.75–1.93 s (docs/benchmarks.md,
 * "Read on demand"). The bytes are kept as read, outside V8's heap, which its
 * collections do not copy; only where the chunk's manifest vouches for
 * them: parsing them cannot fail. An unread record holds the memory they
 * were read into and where they lie in it, not a Buffer of its own: each
 * Buffer is an object on V8's heap, which a start's collections copy too.
 *
 * Besides its id and account, it knows the fields its table asks for
 * (`fields`: a delivery's event, endpoint and status), when they are among
 * its first ones, plain strings: a table groups it, and a filter on them
 * matches it, without parsing it.
 *
 * @example
 * const unread = Unread.of(Buffer.from('{"id":"dlv_1","event_id":"evt_1","account_id":"acct_demo"}'), ['event_id'])
 * unread?.id // 'dlv_1'
 * unread?.field('event_id') // 'evt_1'
 * unread?.read() // the record
 */
export class Unread {
  private constructor(
    readonly memory: ArrayBufferLike,
    readonly offset: number,
    readonly length: number,
    readonly id: string,
    readonly accountId: string,
    readonly known: Readonly<Record<string, string>>,
  ) {}

  /**
   * The bytes as an unread record when its `id` is its first field, its
   * `account_id` its last, and each of `fields` among the first ones (a
   * plain string), as the store writes an event or a delivery; else
   * undefined, and the caller parses them.
   */
  static of(bytes: Buffer, fields: readonly string[] = []): Unread | undefined {
    // byte by byte, not through Buffer's methods: a start calls this for every event, and each method call cost more than the scan
    const last = bytes.length - 1
    if (bytes[last] !== JSON_BYTE.closeBrace || bytes[last - 1] !== JSON_BYTE.quote) return undefined
    const id = leadingId(bytes)
    const account = plainString(bytes, last - 2, -1)
    if (!id || !account || account.to === account.from) return undefined
    if (!holds(bytes, ACCOUNT_START, account.from - ACCOUNT_START.length)) return undefined
    const known = fields.length === 0 ? NONE : leadingFields(bytes, id.to + 1, fields)
    if (!known) return undefined
    return new Unread(
      bytes.buffer,
      bytes.byteOffset,
      bytes.length,
      bytes.toString('utf8', id.from, id.to),
      recentAccount.of(bytes, account.from, account.to),
      known,
    )
  }

  /** The value of a field known without parsing (the id, the account, or one of `fields`); undefined when not known so. */
  field(name: string): string | undefined {
    if (name === 'id') return this.id
    if (name === 'account_id') return this.accountId
    return Object.hasOwn(this.known, name) ? this.known[name] : undefined
  }

  /** The record's JSON, as read. */
  get bytes(): Buffer {
    return Buffer.from(this.memory, this.offset, this.length)
  }

  read(): unknown {
    return JSON.parse(this.bytes.toString())
  }

  /**
   * The record's fields before the first `"key":` its JSON holds (all of them without one), parsed: a
   * snapshot's before its records, which a list shows while the megabytes after stay unread.
   */
  before(key: string): Record<string, unknown> {
    const bytes = this.bytes
    const at = bytes.indexOf(`,"${key}":`)
    return JSON.parse(`${bytes.toString('utf8', 0, at < 0 ? bytes.length - 1 : at)}}`) as Record<string, unknown>
  }

  /** Serialized as the record it stands for, should anything serialize it. */
  toJSON(): unknown {
    return this.read()
  }
}
