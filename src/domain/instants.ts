import * as z from 'zod'

/**
 * A stored instant, to the millisecond as the server writes it. Year 0000 (ISO 8601 allows it) is none PostgreSQL
 * reads, and a finer time does not read back as written: a delivery due then could not be claimed (src/postgres/leases.ts).
 */
export const Timestamp = z.iso
  .datetime()
  .refine((text) => !text.startsWith('0000'), 'must be in year 0001 or later')
  .refine((text) => !/\.\d{4}/.test(text), 'must be to the millisecond at most (3 fraction digits)')

const Rfc3339 = z.iso.datetime({offset: true})

/**
 * A date-time as an input takes it, as `format: date-time` says: RFC 3339, with `Z` or any offset
 * (`+01:00`, as Python's `isoformat()` writes), `T` and `Z` in either case, a leap second (`23:59:60`
 * UTC) read as the second before it, as Java's `Instant.parse` reads one; read as the instant it names and
 * kept in UTC as every timestamp is.
 */
export const TimestampInput = z
  .string()
  .refine((text) => Rfc3339.safeParse(withoutLeapSecond(text)).success, {
    message: 'must be an RFC 3339 date-time, e.g. 2026-11-25T00:00:00+01:00',
    abort: true,
  })
  .refine(leapSecondAtDayEnd, {message: 'may have second 60 (a leap second) only at 23:59 UTC', abort: true})
  // its offset may take it past what is stored: `9999-12-31T23:59:59-01:00` is in year 10000 in UTC
  .refine(
    (text) => inStoredYears(Date.parse(withoutLeapSecond(text))),
    'must be in years 0001 to 9999 once in UTC, as every timestamp is kept',
  )
  .meta({format: 'date-time'})
  .transform((text) => new Date(withoutLeapSecond(text)).toISOString())

/** A date-time's second 60: a leap second, which Date cannot read. */
const LEAP_SECOND = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:)60/i

/** `text` in upper case, a leap second read as the second before it. */
const withoutLeapSecond = (text: string) => text.toUpperCase().replace(LEAP_SECOND, '$159')

/**
 * Whether a second 60 falls where a leap second does, at 23:59 UTC (`15:59:60-08:00` too), as JSON Schema's
 * `date-time` checks it: elsewhere it names no instant.
 */
function leapSecondAtDayEnd(text: string): boolean {
  if (!LEAP_SECOND.test(text)) return true
  const utc = new Date(withoutLeapSecond(text))
  return utc.getUTCHours() === 23 && utc.getUTCMinutes() === 59
}

const FIRST_MS = Date.parse('0001-01-01T00:00:00.000Z')
const LAST_MS = Date.parse('9999-12-31T23:59:59.999Z')
const inStoredYears = (ms: number) => ms >= FIRST_MS && ms <= LAST_MS
