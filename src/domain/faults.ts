import * as z from 'zod'
import {anyCase} from './any-case.js'
import {ApiError} from './errors.js'
import {type FieldRule, withRules} from './field-rules.js'
import {newId} from './ids.js'
import {PATH_PATTERN, REST_LAST, STARTS_WITH_SLASH} from './path-pattern.js'
import {ROUTES} from './routes.js'

/** The largest seed of a fault's draws: its generator's state is 32 bits. */
export const MAX_FAULT_SEED = 2 ** 32 - 1

/** The longest a fault holds an answer (`delay_ms`). */
export const MAX_FAULT_DELAY_MS = 60_000
/** The longest `Retry-After` a fault answers with (`retry_after_s`): a day. */
export const MAX_RETRY_AFTER_S = 86_400

/** The most strikes a fault counts down, as PostgreSQL's integer keeps what is left (`null` strikes until deleted). */
export const MAX_FAULT_TIMES = 2 ** 31 - 1

/** The statuses a fault can answer with. */
export const FAULT_STATUSES = [429, 500, 502, 503, 504] as const

/** The routes a fault never strikes: the simulator's controls stay reachable, and public routes have no account. */
const EXEMPT = /^\/v1\/(sim(\/|$)|health\/?$|openapi\.json\/?$)/

/** The routes a fault can strike, their paths as segments: every API route but the exempt ones. */
const STRUCK = Object.values(ROUTES)
  .map(({method, path}) => ({method: method as string, segments: `/v1${path}`.split('/')}))
  .filter(({segments}) => !EXEMPT.test(segments.join('/')))

/** Whether one request path can fit both a pattern and a route's path: `*`, `**` and `{param}` fit any segment. */
function overlaps(pattern: readonly string[], route: readonly string[]): boolean {
  for (let i = 1; i < pattern.length; i++) {
    if (pattern[i] === '**') return route.length > i
    if (i >= route.length || pattern[i] === '') return false
    if (pattern[i] !== '*' && !route[i]!.startsWith('{') && pattern[i] !== route[i]) return false
  }
  return pattern.length === route.length
}

/**
 * Whether a fault of this match can strike a request: one to an API route it is not exempt from, by a
 * method the route takes (a GET route's HEAD too); slashes at the end of the path match nothing more.
 */
export function canStrike({method, path}: {method?: string; path?: string}): boolean {
  const wanted = method?.toUpperCase()
  const pattern = path?.replace(/\/+$/, '').split('/')
  return STRUCK.some(
    (route) =>
      (wanted === undefined || wanted === route.method || (wanted === 'HEAD' && route.method === 'GET')) &&
      (pattern === undefined || overlaps(pattern, route.segments)),
  )
}

/** Why a match that `canStrike` refuses is refused. */
export const STRIKES_NONE =
  'matches no request a fault strikes: faults strike API routes under /v1/ but /v1/sim/…, /v1/health and /v1/openapi.json, by a method the route takes, e.g. /v1/checks/external/*'

/** A path pattern: `*` one segment, `**` the rest (a fault's `match.path`, a request log's `path` with a `*`). */
export const PathPattern = z
  .string()
  .min(PATH_PATTERN.min)
  .max(PATH_PATTERN.max)
  .regex(PATH_PATTERN.start, STARTS_WITH_SLASH)
  .regex(PATH_PATTERN.restLast, {message: REST_LAST, abort: true})

/** The methods a fault matches, in any case: every method an API route takes (PATCH /v1/webhook-endpoints/{id} can fail too). */
export const FAULT_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/** A fault does something: it answers with a status, holds the answer, or closes the connection. */
const ACTS: FieldRule = {
  anyOf: ['status', 'delay_ms', {reset: true}],
  message: 'a fault needs status, delay_ms or reset: true',
  path: ['status'],
}

/** A fault that closes the connection gives no status, which it could not answer with. */
const RESETS_OR_ANSWERS: FieldRule = {
  not: [{reset: true}, 'status'],
  message: 'reset closes the connection with no answer: give status or reset, not both',
  path: ['reset'],
}

/** Why a `retry_after_s` goes with status 429 or 503 only, in the API's words and `faults add`'s. */
export const RETRY_AFTER_ONLY = 'is the Retry-After header, which only 429 and 503 answers carry'

/** `retry_after_s` is the `Retry-After` header, which only the answers that ask for a wait carry. */
const WAITS_ONLY: FieldRule = {
  if: 'retry_after_s',
  anyOf: [{status: 429}, {status: 503}],
  message: `retry_after_s ${RETRY_AFTER_ONLY}: give status 429 or 503, or leave it out`,
  path: ['retry_after_s'],
}

/** The body of `POST /v1/sim/faults` (docs/api.md, "Faults and rate limits"). */
export const FaultInput = withRules(
  z.strictObject({
    match: z
      .strictObject({
        method: z
          .string()
          .regex(
            new RegExp(`^(${FAULT_METHODS.map(anyCase).join('|')})$`),
            `one of ${FAULT_METHODS.join(', ')}, in any case`,
          )
          // what the pattern's classes of both cases say, in words
          .describe(`${FAULT_METHODS.join(', ')}, in any case`)
          .optional(),
        path: PathPattern.optional(),
      })
      .refine(canStrike, {
        message: STRIKES_NONE,
        path: ['path'],
        // a bad method or path is said alone: what no route takes is asked of those that parsed
        when: ({issues}) => issues.length === 0,
      })
      .optional(),
    status: z.literal(FAULT_STATUSES).optional(),
    retry_after_s: z.int().min(0).max(MAX_RETRY_AFTER_S).optional(),
    delay_ms: z.int().min(0).max(MAX_FAULT_DELAY_MS).optional(),
    reset: z.boolean().optional(),
    after: z.boolean().optional(),
    times: z.int().min(1).max(MAX_FAULT_TIMES).nullable().optional(),
    probability: z.number().min(0).max(1).optional(),
    seed: z.int().min(0).max(MAX_FAULT_SEED).optional(),
  }),
  [ACTS, RESETS_OR_ANSWERS, WAITS_ONLY],
)
export type FaultInput = z.infer<typeof FaultInput>

/** A fault as the API shows it. */
export const Fault = z.object({
  id: z.string(),
  object: z.literal('fault'),
  match: z.object({method: z.string().nullable(), path: z.string().nullable()}),
  status: z.int().nullable(),
  retry_after_s: z.int().nullable(),
  delay_ms: z.int(),
  reset: z.boolean(),
  after: z.boolean(),
  times: z.int().nullable(),
  remaining: z.int().nullable(),
  probability: z.number(),
  seed: z.int().nullable(),
  created_at: z.string(),
})
export type Fault = z.infer<typeof Fault>

/** A fault as the server keeps it (in memory): the resource, its account and where its random draws are. */
export interface FaultRecord extends Fault {
  account_id: string
  /** The state of its seeded generator; undefined draws from Math.random. */
  random_state?: number
}

/**
 * A new fault from its input: `times` 1 unless given (`null`: until
 * deleted), `retry_after_s` 1 on 429 and 503 unless given.
 *
 * @example
 * createFault({status: 503}, 'acct_demo', now) // {id: 'flt_…', status: 503, retry_after_s: 1, remaining: 1, …}
 */
export function createFault(input: FaultInput, accountId: string, now: string): FaultRecord {
  const status = input.status ?? null
  const waits = status === 429 || status === 503
  const times = input.times === undefined ? 1 : input.times
  return {
    id: newId('flt'),
    object: 'fault',
    match: {method: input.match?.method?.toUpperCase() ?? null, path: input.match?.path ?? null},
    status,
    retry_after_s: waits ? (input.retry_after_s ?? 1) : null,
    delay_ms: input.delay_ms ?? 0,
    reset: input.reset ?? false,
    after: input.after ?? false,
    times,
    remaining: times,
    probability: input.probability ?? 1,
    seed: input.seed ?? null,
    created_at: now,
    account_id: accountId,
    random_state: input.seed,
  }
}

export function renderFault({account_id, random_state, ...fault}: FaultRecord): Fault {
  return fault
}

/**
 * Whether `path` fits `pattern`: `*` is one segment, `**` the rest (one
 * segment or more), anything else must be equal; a trailing slash is ignored.
 *
 * @example
 * pathMatches('/v1/checks/external/*', '/v1/checks/external/t12') // true
 * pathMatches('/v1/**', '/v1/checks/chk_1/claims') // true
 */
export function pathMatches(pattern: string, path: string): boolean {
  const want = pattern.replace(/\/+$/, '').split('/')
  const got = path.replace(/\/+$/, '').split('/')
  for (let i = 0; i < want.length; i++) {
    if (want[i] === '**') return got.length > i
    if (i >= got.length) return false
    if (want[i] !== '*' && want[i] !== got[i]) return false
    if (want[i] === '*' && got[i] === '') return false
  }
  return want.length === got.length
}

/** Whether the fault is for this request (its account was checked by who holds it). */
export const faultMatches = (fault: Fault, method: string, path: string): boolean =>
  (fault.match.method === null ||
    fault.match.method === method ||
    (fault.match.method === 'GET' && method === 'HEAD')) &&
  (fault.match.path === null || pathMatches(fault.match.path, path))

/**
 * One draw in [0, 1) from a seeded generator (mulberry32), and its next
 * state: the same seed gives the same sequence on every run.
 *
 * @example
 * const {value, state} = nextRandom(42)
 */
export function nextRandom(state: number): {value: number; state: number} {
  const next = (state + 0x6d2b79f5) >>> 0
  let t = next
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return {value: ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296, state: next}
}

/**
 * The `n`-th draw (from 1) of the sequence `nextRandom` makes from `seed`:
 * its state only ever adds a constant, so any draw is found without the ones
 * before it. Instances on one database share a seeded fault's sequence this
 * way, each taking the next number of draws (docs/postgres.md).
 *
 * @example
 * drawAt(42, 1) === nextRandom(42).value // true
 */
export const drawAt = (seed: number, n: number): number => nextRandom((seed + Math.imul(n - 1, 0x6d2b79f5)) >>> 0).value

/** The error answer of a status fault: `rate_limited` for 429, `simulated_fault` otherwise, at the fault's status. */
export class FaultError extends ApiError {
  constructor(readonly fault: Fault) {
    const status = fault.status ?? 503
    const lost = fault.after ? ': the request was carried out (saved, if it succeeded), only its answer is lost' : ''
    super(
      status === 429 ? 'rate_limited' : 'simulated_fault',
      status === 429
        ? `Too many requests (simulated by fault ${fault.id})${lost}; retry after the Retry-After seconds.`
        : `Simulated failure ${status} (fault ${fault.id})${lost}; DELETE /v1/sim/faults removes it.`,
    )
    ;(this as {status: number}).status = status
  }
}
