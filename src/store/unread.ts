import {holds, JSON_BYTE, plainString} from './bytes.js'

const ID_START = Buffer.from('{"id":"')
const ACCOUNT_START = Buffer.from(',"account_id":"')

/** The account id last found, and its bytes: a data dir's events name a few accounts, so most find the same string. */
let lastAccount = {bytes: Buffer.alloc(0), text: ''}

/** The account id in `bytes[from, to)`, as the string the previous event's was when their bytes are the same. */
function accountIn(bytes: Buffer, from: number, to: number): string {
  const {bytes: last, text} = lastAccount
  if (last.length === to - from && holds(bytes, last, from)) return text
  lastAccount = {bytes: Buffer.from(bytes.subarray(from, to)), text: bytes.toString('utf8', from, to)}
  return lastAccount.text
}

/**
 * A record read from a chunk as its JSON bytes, parsed only when something
 * asks for it (docs/storage.md, "Read on demand"). A start reads the
 * 100,000 events a data dir may keep, and parsing them was most of a
 * restart's time, while most are never read again before retention drops
 * them. The bytes are kept as read, outside V8's heap, which its
 * collections do not copy; only where the chunk's manifest vouches for
 * them: parsing them cannot fail. An unread record holds the memory they
 * were read into and where they lie in it, not a Buffer of its own: each
 * Buffer is an object on V8's heap, which a start's collections copy too.
 *
 * @example
 * const unread = Unread.of(Buffer.from('{"id":"evt_1","object":"event","account_id":"acct_demo"}'))
 * unread?.id // 'evt_1'
 * unread?.read() // the record
 */
export class Unread {
  private constructor(
    readonly memory: ArrayBufferLike,
    readonly offset: number,
    readonly length: number,
    readonly id: string,
    readonly accountId: string,
  ) {}

  /**
   * The bytes as an unread record when its `id` is its first field and its
   * `account_id` its last, as the store writes an event; else undefined,
   * and the caller parses them.
   */
  static of(bytes: Buffer): Unread | undefined {
    // byte by byte, not through Buffer's methods: a start calls this for every event, and each method call cost more than the scan
    const last = bytes.length - 1
    if (bytes[last] !== JSON_BYTE.closeBrace || bytes[last - 1] !== JSON_BYTE.quote || !holds(bytes, ID_START, 0))
      return undefined
    const id = plainString(bytes, ID_START.length, 1)
    const account = plainString(bytes, last - 2, -1)
    if (!id || !account || id.to === id.from || account.to === account.from) return undefined
    if (!holds(bytes, ACCOUNT_START, account.from - ACCOUNT_START.length)) return undefined
    return new Unread(
      bytes.buffer,
      bytes.byteOffset,
      bytes.length,
      bytes.toString('utf8', id.from, id.to),
      accountIn(bytes, account.from, account.to),
    )
  }

  /** The record's JSON, as read. */
  get bytes(): Buffer {
    return Buffer.from(this.memory, this.offset, this.length)
  }

  read(): unknown {
    return JSON.parse(this.bytes.toString())
  }

  /** Serialized as the record it stands for, should anything serialize it. */
  toJSON(): unknown {
    return this.read()
  }
}
