import {ApiError} from './errors.js'

/**
 * What one account may hold of what a caller makes freely, and what a server
 * keeps of scratch accounts: bounds that keep any key from growing the
 * server without end (docs/api.md, "Limits").
 */
export const LIMITS = {
  /** Faults of one account (`POST /sim/faults`). */
  faults: 100,
  /** Webhook endpoints of one account. */
  webhook_endpoints: 100,
  /** Scratch accounts alive at once on one server: past it, the one unused longest goes. */
  scratch_accounts: 1000,
} as const

export type LimitName = keyof typeof LIMITS

export type Limits = Record<LimitName, number>

/** The bound a server holds to, `limits` given its own (a test's, small) or not. */
export const limitOf = (limits: Partial<Limits> | undefined, name: LimitName): number => limits?.[name] ?? LIMITS[name]

/**
 * Refuses one more when `held` already reaches `limit`: 422 `limit_reached`
 * naming it.
 *
 * @example
 * checkLimit('faults', (await faults.list(accountId)).length, LIMITS.faults)
 */
export function checkLimit(name: AccountLimit, held: number, limit: number): void {
  if (held >= limit) throw limitReached(name, held, limit)
}

type AccountLimit = Exclude<LimitName, 'scratch_accounts'>

/** 422 `limit_reached`: the account holds `held` of `name`, and may hold at most `limit`. */
export function limitReached(name: AccountLimit, held: number, limit: number): ApiError {
  const noun = name.replace('_', ' ')
  return new ApiError(
    'limit_reached',
    `This account has ${held} ${noun}, the most it may have (${limit}). Delete some before adding another.`,
    [{path: name, message: `at most ${limit} per account`}],
  )
}
