const ID_START = '{"id":"'
const ACCOUNT_START = ',"account_id":"'
const END = '"}'

/** The text between `from` and `to` when it is a JSON string's plain content (no quote, no escape), else undefined. */
function plain(text: string, from: number, to: number): string | undefined {
  if (from > to) return undefined
  const value = text.slice(from, to)
  return value.includes('"') || value.includes('\\') ? undefined : value
}

/**
 * A record read from a chunk as its JSON text, parsed only when something
 * asks for it (docs/storage.md, "Read on demand"). A start reads the
 * 100,000 events a data dir may keep, and parsing them was most of a
 * restart's time, while most are never read again before retention drops
 * them. The text is kept only where the chunk's manifest vouches for its
 * bytes: parsing it cannot fail.
 *
 * @example
 * const unread = Unread.of('{"id":"evt_1","object":"event","account_id":"acct_demo"}')
 * unread?.id // 'evt_1'
 * unread?.read() // the record
 */
export class Unread {
  private constructor(
    readonly text: string,
    readonly id: string,
    readonly accountId: string,
  ) {}

  /**
   * The text as an unread record when its `id` is its first field and its
   * `account_id` its last, as the store writes an event; else undefined,
   * and the caller parses it.
   */
  static of(text: string): Unread | undefined {
    if (!text.startsWith(ID_START) || !text.endsWith(END)) return undefined
    const at = text.lastIndexOf(ACCOUNT_START)
    const id = plain(text, ID_START.length, text.indexOf('"', ID_START.length))
    const accountId = at === -1 ? undefined : plain(text, at + ACCOUNT_START.length, text.length - END.length)
    return id && accountId ? new Unread(text, id, accountId) : undefined
  }

  read(): unknown {
    return JSON.parse(this.text)
  }

  /** Serialized as the record it stands for, should anything serialize it. */
  toJSON(): unknown {
    return this.read()
  }
}
