import * as z from 'zod'
import {EVENT_TYPES} from './constants.js'
import {formatDuration, parseDuration} from './duration.js'
import {hasDotSegment} from './routes.js'
import {MAX_NESTING, pathPast} from './json-depth.js'
import {
  BUILTIN_REFERENCES,
  protoFieldPath,
  referencesIn,
  STEP_ID,
  stringsIn,
  RUN_LENGTH,
  withReferencesAs,
} from './scenario-references.js'
import {MAX_ADVANCE_S} from './schemas.js'
import {SnapshotName} from './snapshots.js'
import {READABLE} from './parse-messages.js'

/**
 * A scenario file (docs/scenarios.md): steps that drive both sides of an
 * integration (the POS's pushes, the guest's claims and payments, the clock,
 * faults) and expectations about what happened. Every step has exactly one
 * kind key; `id` names its answer for later references, `status` the HTTP
 * status its request must get (default: any 2xx).
 */
export const STEP_KINDS = [
  'push',
  'claim',
  'pay',
  'refund',
  'feedback',
  'advance',
  'fault',
  'webhook_endpoint',
  'request',
  'expect',
  'expect_event',
  'snapshot',
  'restore',
] as const
export type StepKind = (typeof STEP_KINDS)[number]

const Text = z.string().min(1)
const Path = z
  .string()
  .regex(/^\//, 'must be a path under /v1 that starts with /, e.g. /checks/${open.id}')
  .refine((path) => !hasDotSegment(path), 'must stay under /v1: no . or .. segment, e.g. /checks/${open.id}')
const Method = z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'])
/** The headers `fetch` sets itself from the request, or refuses to send (Node's undici throws for each). */
const FETCH_OWN = new Set(['connection', 'content-length', 'expect', 'keep-alive', 'transfer-encoding', 'upgrade'])
/** What `fetch` sends as a header's value: no line breaks or control characters, none past U+00FF (RFC 9110 §5). */
export const isHeaderValue = (text: string): boolean => /^[\t\x20-\x7e\x80-\xff]*$/.test(text)
/** A header's value as written, its references yet to be filled in: the run checks it again once they are. */
const headerValue = (text: z.ZodString) =>
  text.refine((value) => isHeaderValue(withReferencesAs(value, 'x')), {
    message: 'must be a header value: no line breaks or control characters, and none past U+00FF',
  })
// what `fetch` sends: a token as the name
const Headers = z.record(z.string(), headerValue(z.string())).superRefine((headers, context) => {
  for (const name of Object.keys(headers))
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      context.addIssue({
        code: 'custom',
        path: [name],
        message: "must be a header name: letters, digits and !#$%&'*+.^_`|~-",
      })
    else if (FETCH_OWN.has(name.toLowerCase()))
      context.addIssue({
        code: 'custom',
        path: [name],
        message: "is fetch's own: it sets it from the request, or refuses to send it; leave it out",
      })
})
// sent as the Idempotency-Key header
const Key = {idempotency_key: headerValue(Text).optional()}
/** The seconds of a duration as written, NaN when it is none (the checks of a union run on what failed it too). */
const secondsOf = (value: unknown) => {
  try {
    return durationSeconds(value as number | string)
  } catch {
    return Number.NaN
  }
}
const EXAMPLES = 'a duration such as 500ms, 5s, 2h or 1h30m'
// `0s` is a duration, and refused for its length: the message says so rather than how to write one
const LONGER = `must be longer than 0: ${EXAMPLES}`
const Duration = z.union(
  [
    z.number().positive({message: LONGER}),
    z.string().superRefine((text, context) => {
      const seconds = secondsOf(text)
      if (!(seconds > 0)) context.addIssue({code: 'custom', message: seconds === 0 ? LONGER : `must be ${EXAMPLES}`})
    }),
  ],
  // neither a number nor a string (`true`, `null`): zod's own "Invalid input" would not say what it takes
  {error: (issue) => (issue.code === 'invalid_union' ? `must be ${EXAMPLES}` : undefined)},
)
const Advance = Duration.refine((duration) => !(secondsOf(duration) > MAX_ADVANCE_S), {
  message: `must be at most ${formatDuration(MAX_ADVANCE_S)}, the most POST /sim/clock/advance takes`,
})
// a name the snapshot routes take once the references are put in: `${run}` as its 8 characters, any other as a
// letter, its value unknown yet
const SnapshotStepName = z.string().superRefine((name, context) => {
  const filled = withReferencesAs(name.replaceAll('${run}', 'r'.repeat(RUN_LENGTH)), 'x')
  for (const {message} of SnapshotName.safeParse(filled).error?.issues ?? [])
    context.addIssue({code: 'custom', message})
})
// a part of an answer to find in it: a bare value would be an equality, which `status` or a field says better
const Subset = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())], {
  error: 'must be a JSON object or array: the part of the answer it must contain',
})

/** What each kind takes. A kind whose object carries a body keeps the fields it does not name for that body. */
export const STEP_INPUTS = {
  push: z.looseObject({external_id: Text}),
  claim: z.looseObject({check: Text, ...Key}),
  pay: z.looseObject({check: Text, ...Key}),
  refund: z.looseObject({payment: Text, ...Key}),
  feedback: z.looseObject({check: Text, ...Key}),
  advance: Advance,
  fault: z.record(z.string(), z.unknown()),
  webhook_endpoint: z.looseObject({url: Text}),
  request: z
    .strictObject({
      method: Method,
      path: Path,
      body: z.unknown().optional(),
      headers: Headers.optional(),
      ...Key,
    })
    // fetch refuses to send one
    .refine((request) => !['GET', 'HEAD'].includes(request.method) || request.body === undefined, {
      path: ['body'],
      message: 'a GET or HEAD has no body: leave it out, or use another method',
    }),
  expect: z.strictObject({get: Path, status: z.int().min(100).max(599).optional(), json: Subset.optional()}),
  expect_event: z.strictObject({
    type: z.enum(EVENT_TYPES),
    json: z
      .record(z.string(), z.unknown(), {error: 'must be a JSON object: the part of the event it must contain'})
      .optional(),
    within: Duration.optional(),
    delivered: z.boolean().optional(),
  }),
  snapshot: SnapshotStepName,
  restore: SnapshotStepName,
} satisfies Record<StepKind, z.ZodType>

export type StepInput<K extends StepKind> = z.infer<(typeof STEP_INPUTS)[K]>

/** One step, as validated: its kind and what the kind takes. */
export type ScenarioStep = {
  [K in StepKind]: {kind: K; input: StepInput<K>; id?: string; status?: number | null}
}[StepKind]

export interface Scenario {
  name: string
  description?: string
  steps: ScenarioStep[]
}

const Header = z.strictObject({
  tablepay_scenario: z.literal(1, {error: 'must be 1, the version of the scenario format'}),
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be 1-64 characters of a-z 0-9 and -, the first a letter or digit'),
  description: z.string().max(1000).optional(),
  steps: z.array(z.unknown()).min(1).max(1000),
})

const StepCommon = z.object({
  id: z.string().regex(STEP_ID, 'must start with a letter or _ and hold letters, digits, _ and -').optional(),
  // null: the request gets no answer at all (a fault with reset: true)
  status: z.int().min(100).max(599).nullable().optional(),
})

/** One thing wrong with a scenario: the step (1-based, and its id) and the jq path inside the file. */
export interface ScenarioProblem {
  step?: number
  id?: string
  path: string
  message: string
}

export type ScenarioCheck = {valid: true; scenario: Scenario} | {valid: false; problems: ScenarioProblem[]}

const jq = (path: PropertyKey[]) =>
  path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('') || '.'

/**
 * The scenario in `value`, or every problem with it: an unknown step kind,
 * a field a kind does not take, a reference to a step that does not exist or
 * comes later, a `json` that is no object or array. Nothing needs a server:
 * a run starts only from a valid scenario, so a bad file sends nothing.
 *
 * @example
 * const checked = checkScenario(JSON.parse(text))
 * if (!checked.valid) console.log(checked.problems[0]) // {step: 2, id: 'c1', path: '.steps[1].claim.check', message: …}
 */
export function checkScenario(value: unknown): ScenarioCheck {
  const header = Header.safeParse(value, READABLE)
  const problems: ScenarioProblem[] = (header.error?.issues ?? []).map((i) => ({path: jq(i.path), message: i.message}))
  // the steps are checked whatever else is wrong (a name): one run of validate lists every problem
  const given = typeof value === 'object' && value !== null ? (value as {steps?: unknown}).steps : undefined
  const stepsGiven = header.data?.steps ?? Header.shape.steps.safeParse(given).data
  if (stepsGiven === undefined) return {valid: false, problems}
  const steps: ScenarioStep[] = []
  const seen = new Map<string, number>()
  const ids = new Map<string, number>()
  stepsGiven.forEach((raw, index) => {
    const id = idOf(raw)
    if (id !== undefined && !ids.has(id)) ids.set(id, index)
  })
  stepsGiven.forEach((raw, index) => {
    const at = (path: PropertyKey[], message: string, id?: string) =>
      problems.push({step: index + 1, ...(id === undefined ? {} : {id}), path: jq(['steps', index, ...path]), message})
    const id = idOf(raw)
    if (id !== undefined) {
      if (seen.has(id)) at(['id'], `step ${seen.get(id)! + 1} has the id "${id}" already`, id)
      else if ((BUILTIN_REFERENCES as readonly string[]).includes(id))
        at(['id'], `"${id}" is a reference of its own (\${${id}}): name the step otherwise`, id)
      seen.set(id, index)
    }
    const parsed = parseStep(raw, at)
    if (!parsed) return
    for (const {path, text} of stringsIn(parsed.input)) {
      for (const reference of referencesIn(text)) {
        const where = [parsed.kind, ...path]
        if ('malformed' in reference) {
          at(
            where,
            `${reference.text} is not a reference: write \${run}, \${location}, \${receiver} or \${step.field}`,
            parsed.id,
          )
          continue
        }
        if ((BUILTIN_REFERENCES as readonly string[]).includes(reference.name)) {
          // a field of one would be ignored at run time: `${receiver}/503` is text after the reference, not a field
          if (reference.field.length > 0)
            at(where, `${reference.text}: \${${reference.name}} has no fields, write it alone`, parsed.id)
          continue
        }
        const target = ids.get(reference.name)
        if (target === undefined)
          at(where, `${reference.text} refers to step "${reference.name}", which no step has`, parsed.id)
        else if (target >= index)
          at(
            where,
            `${reference.text} refers to step "${reference.name}" (step ${target + 1}), which has not run yet here`,
            parsed.id,
          )
      }
    }
    steps.push(parsed)
  })
  if (problems.length > 0 || !header.success) return {valid: false, problems}
  const {name, description} = header.data
  return {valid: true, scenario: {name, ...(description === undefined ? {} : {description}), steps}}
}

/** A step's `id` as written, when it is a string. */
const idOf = (raw: unknown) => {
  const id = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>).id : undefined
  return typeof id === 'string' ? id : undefined
}

/** One step's kind and input, or undefined after saying what is wrong with it. */
function parseStep(
  raw: unknown,
  at: (path: PropertyKey[], message: string, id?: string) => void,
): ScenarioStep | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    at([], 'a step is an object with one kind: {"push": {…}}, {"expect": {…}}, …')
    return undefined
  }
  const {id, status, ...rest} = raw as Record<string, unknown>
  const common = StepCommon.safeParse({id, status}, READABLE)
  const named = typeof id === 'string' ? id : undefined
  if (!common.success) for (const issue of common.error.issues) at(issue.path, issue.message, named)
  const kinds = Object.keys(rest)
  const known = kinds.filter((key): key is StepKind => (STEP_KINDS as readonly string[]).includes(key))
  for (const key of kinds.filter((key) => !known.includes(key as StepKind)))
    at([key], `unknown step kind "${key}": one of ${STEP_KINDS.join(', ')}`, named)
  if (known.length !== 1) {
    if (kinds.length === 0 || known.length > 1) at([], `a step has exactly one kind, not ${known.length}`, named)
    return undefined
  }
  const kind = known[0]!
  if (status !== undefined && (kind === 'expect' || kind === 'expect_event'))
    at(
      ['status'],
      `an ${kind} step has no status of its own${kind === 'expect' ? ': put it inside "expect"' : ''}`,
      named,
    )
  const deep = pathPast(rest[kind], MAX_NESTING)
  if (deep) {
    at([kind, ...deep], `nests deeper than ${MAX_NESTING} levels, which no body or answer of the API does`, named)
    return undefined
  }
  const proto = protoFieldPath(rest[kind])
  if (proto) {
    at([kind, ...proto], 'is no field of the API: a step can neither send nor expect "__proto__"', named)
    return undefined
  }
  const input = STEP_INPUTS[kind].safeParse(rest[kind], READABLE)
  if (!input.success) for (const issue of input.error.issues) at([kind, ...issue.path], issue.message, named)
  if (!common.success || !input.success || kinds.length !== 1) return undefined
  return {kind, input: input.data, ...common.data} as ScenarioStep
}

/** The seconds of a duration as a scenario writes it: a number of seconds, or text such as `2h`. */
export const durationSeconds = (value: number | string): number =>
  typeof value === 'number' ? value : parseDuration(value)
