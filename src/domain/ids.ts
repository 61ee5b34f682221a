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

/** A random token of `length` lowercase base-36 characters. */
export function randomToken(length = 24): string {
  let out = ''
  while (out.length < length) {
    const byte = randomByte()
    // bytes of 252 and above are dropped: 252 = 7 * 36, so the rest map evenly
    if (byte < 252) out += ALPHABET[byte % 36]
  }
  return out
}

export type IdPrefix = 'acct' | 'loc' | 'chk' | 'clm' | 'evt' | 'req' | 'we' | 'dlv' | 'pay' | 'fb'

/**
 * A new resource id: the resource's prefix, an underscore, random characters.
 *
 * @example
 * newId('chk') // 'chk_4f0b6k2m9q1x8s7d3a5z'
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomToken(20)}`
}
