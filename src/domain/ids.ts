import {randomFillSync} from 'node:crypto'

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz'

// Every request makes ids: one randomFillSync per few hundred ids costs far
// less than a randomBytes call each (crypto.randomUUID caches the same way).
const pool = Buffer.alloc(4096)
let used = pool.length

function randomByte(): number {
  if (used === pool.length) {
    randomFillSync(pool)
    used = 0
  }
  return pool[used++]!
}

const LETTERS = Buffer.from(ALPHABET, 'latin1')

// A string read out of a buffer is flat; one built a character at a time is a chain of pieces that every
// map lookup by it first copies into one (a push to 100 endpoints makes 100 delivery ids, each a key of large maps).
const spelled = Buffer.alloc(256)

/** `prefix` then `length` random lowercase base-36 characters. */
function spell(prefix: string, length: number): string {
  const buffer = prefix.length + length <= spelled.length ? spelled : Buffer.alloc(prefix.length + length)
  let at = buffer.write(prefix, 'latin1')
  const end = at + length
  while (at < end) {
    const byte = randomByte()
    // bytes of 252 and above are dropped: 252 = 7 * 36, so the rest map evenly
    if (byte < 252) buffer[at++] = LETTERS[byte % 36]!
  }
  return buffer.toString('latin1', 0, end)
}

/** A random token of `length` lowercase base-36 characters. */
export function randomToken(length = 24): string {
  return spell('', length)
}

export type IdPrefix = 'acct' | 'loc' | 'chk' | 'clm' | 'evt' | 'req' | 'we' | 'dlv' | 'pay' | 'fb' | 'flt'

/** What begins an id, or a check's guest token (`gt_`, push.ts): its table link's last segment. */
export type KeyPrefix = IdPrefix | 'gt'

/**
 * An id as the server takes it: `prefix`, `_`, then 1-60 letters, digits or `_`. Every id `newId` makes fits,
 * and so does one a seed or `POST /sim/webhook-endpoints` chooses; each is a URL's path segment as it is, where
 * a `/`, a space or `..` would name a record that no route reaches.
 */
export const idPattern = (prefix: KeyPrefix): RegExp => new RegExp(`^${prefix}_[A-Za-z0-9_]{1,60}$`)

/** What an error says of a value that is no id of `prefix` (`idPattern`). */
export const idRule = (prefix: KeyPrefix): string =>
  `must be ${prefix}_ then 1-60 letters, digits or _, as the server makes and takes them`

/**
 * A new resource id: the resource's prefix, an underscore, random characters.
 *
 * @example
 * newId('chk') // 'chk_4f0b6k2m9q1x8s7d3a5z'
 */
export function newId(prefix: IdPrefix): string {
  return spell(`${prefix}_`, 20)
}
