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
 * (`+01:00`, as Python's `isoformat()` writes), `T` and `Z` in either case; read as the instant it
 * names and kept in UTC as every timestamp is.
 */
export const TimestampInput = z
  .string()
  .refine(
    (text) => Rfc3339.safeParse(text.toUpperCase()).success,
    'must be an RFC 3339 date-time, e.g. 2026-11-25T00:00:00+01:00',
  )
  .meta({format: 'date-time'})
  .transform((text) => new Date(text.toUpperCase()).toISOString())
