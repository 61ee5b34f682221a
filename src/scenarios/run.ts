import {randomBytes} from 'node:crypto'
import {setTimeout as sleep} from 'node:timers/promises'
import type {RawAnswer, TablepayClient} from '../client/client.js'
import {TablepayError, TablepayEventStreamError} from '../client/errors.js'
import {CLIENT_HEADER} from '../domain/constants.js'
import {type SubsetDifference, subsetDifferences} from '../domain/json-subset.js'
import {hasDotSegment, UnsendableSegmentError} from '../domain/routes.js'
import {isHeaderValue, type Scenario, type ScenarioStep, type StepKind} from '../domain/scenario.js'
import {
  fieldOf,
  type Reference,
  referencesIn,
  resolveReferences,
  RUN_LENGTH,
  stringsIn,
  UnresolvedReferenceError,
} from '../domain/scenario-references.js'
import {rejectOnAbort} from '../shared/reject-on-abort.js'
import {stepName} from './errors.js'
import {awaitEvent, RunEvents} from './events.js'
import {ANSWER_GRACE_MS, cleanUp, pastRateLimit} from './cleanup.js'
import {startScenarioReceiver, type ScenarioReceiver} from './receiver.js'
import {type StepRequest, stepRequest} from './requests.js'

/** How one step went. */
export interface StepReport {
  /** 1-based, as the file's order. */
  step: number
  id?: string
  kind: StepKind
  /** What it did, in a few words: `PUT /checks/external/t7-k3x9`, `payment.succeeded within 5s`. */
  title: string
  ok: boolean
  /** Not run: an action before it failed, and what follows builds on it. */
  skipped?: true
  /** The HTTP status its request got; null when it got no answer. */
  status?: number | null
  /** Where what it got differs from what was expected (the status at path `status`). */
  differences: SubsetDifference[]
  /** Why it failed, in words, when a difference does not say it all. */
  error?: string
}

export interface ScenarioReport {
  scenario: string
  /** `${run}`: the suffix of this run. */
  run: string
  ok: boolean
  passed: number
  failed: number
  skipped: number
  steps: StepReport[]
  /**
   * The temporary endpoint of `forwardTo`, removed at the end; `delivered`: whether a delivery to it had succeeded
   * (a 2xx) by then, absent when the run made none, or was stopped.
   */
  forwarded_to?: {url: string; endpoint_id: string; delivered?: boolean}
  /** Endpoints the run made for itself and could not remove, with why: delete them (docs/scenarios.md, "Running"). */
  left_behind?: LeftBehind[]
  /**
   * Stopped (`signal`, a Ctrl+C) while a step was under way (that step failed, those after it were skipped), or
   * during the cleanup, which it cut short: not `ok` either way.
   */
  interrupted?: true
}

/** An endpoint the run made for itself that is still there. */
export interface LeftBehind {
  endpoint_id: string
  url: string
  error: string
}

export interface RunOptions {
  /** A receiver of yours: a temporary endpoint (the account's listen secret) gets the run's webhooks. */
  forwardTo?: string
  /** Aborting stops the run after cleaning up (the temporary endpoint, the run's receiver). */
  signal?: AbortSignal
  /** Told of each step as it ends, for a live view. */
  onStep?: (step: StepReport) => void
  /** Wraps each step's run, named `Step 7 (paid): expect_event`: the CLI shows a spinner on one that lasts. */
  wait?: <T>(text: string, work: Promise<T>) => Promise<T>
}

/** What a run holds while its steps go: the references' values and where things are. */
interface RunState {
  client: TablepayClient
  /**
   * The client, marked as the simulator's own (`X-Tablepay-Client: scenario`), for the run's own reads (its waits
   * on events and deliveries, its baseline, `${location}`): no traffic of the user's, which a rate limit, a fault
   * or the request log would count (docs/scenarios.md).
   */
  reads: TablepayClient
  run: string
  location?: string
  receiver?: ScenarioReceiver
  /** The endpoints steps made on the receiver: they would outlive it, retrying every later event. */
  onReceiver: {id: string; url: string}[]
  answers: Map<string, unknown>
  /** With a step that waits for events: those made since the run began, or since its last restore. */
  events?: RunEvents
  signal?: AbortSignal
}

// the action kinds: a failed one stops the run, since what follows builds on its answer
const CHECKS = new Set<StepKind>(['expect', 'expect_event'])

/**
 * Runs a validated scenario against the server `client` talks to, step by
 * step, and reports each. An expectation that fails is reported and the run
 * goes on; an action that fails (an unexpected status, no answer, a
 * reference its answers lack) ends it, the steps after it skipped.
 *
 * @example
 * const report = await runScenario(client, scenario, {onStep: (s) => console.log(s.ok ? '✓' : '✗', s.title)})
 * report.ok // every step held
 */
export async function runScenario(
  client: TablepayClient,
  scenario: Scenario,
  {forwardTo, signal, onStep, wait = (_text, work) => work}: RunOptions = {},
): Promise<ScenarioReport> {
  const used = new Set(scenario.steps.flatMap((step) => namesIn(step.input)))
  const run = randomBytes(RUN_LENGTH / 2).toString('hex')
  const reads = client.withHeaders({[CLIENT_HEADER]: 'scenario'})
  const state: RunState = {client, reads, run, onReceiver: [], answers: new Map(), signal}
  let forwarded: ScenarioReport['forwarded_to']
  const stopped = rejectOnAbort(signal, () => new TablepayError('interrupted', 'The scenario run was interrupted.'))
  const steps: StepReport[] = []
  let interrupted = false
  let leftBehind: LeftBehind[]
  const setUp = async () => {
    if (used.has('location')) state.location = await firstLocation(reads)
    if (used.has('receiver')) state.receiver = await startScenarioReceiver()
    if (scenario.steps.some((step) => step.kind === 'expect_event')) state.events = await RunEvents.from(reads)
    if (forwardTo !== undefined) {
      const {secret} = await client.getListenSecret()
      const description = `tablepay scenario run ${scenario.name}`
      const endpoint = await client.createWebhookEndpointWithSecret({url: forwardTo, secret, description})
      forwarded = {url: forwardTo, endpoint_id: endpoint.id}
    }
  }
  try {
    const settingUp = setUp()
    // stopped meanwhile: its requests have a moment to answer (the endpoint of --forward-to), as a step's
    await Promise.race([settingUp, stopped]).catch(async (error: unknown) => {
      if (!signal?.aborted) throw error
      await wait('Interrupted: the run is setting up', within(ANSWER_GRACE_MS, settingUp))
    })
    let failedAction = false
    for (const [index, step] of scenario.steps.entries()) {
      // stopped before it began (in the run's setup, or between steps): it sends nothing
      if (signal?.aborted) interrupted = true
      const report =
        failedAction || interrupted
          ? unfinished(index, step, interrupted ? 'skipped' : undefined)
          : await runOrStop(state, index, step, stopped, wait)
      if (signal?.aborted) interrupted = true
      if (!report.ok && !report.skipped && !CHECKS.has(step.kind)) failedAction = true
      steps.push(report)
      onStep?.(report)
    }
  } finally {
    // every way out removes what the run made for itself: an endpoint left behind keeps receiving every event
    // (the steps that would delete the receiver's endpoints do not run after a failed action)
    const forwardedTo = forwarded ? [{id: forwarded.endpoint_id, url: forwarded.url}] : []
    if (forwarded && !signal?.aborted) {
      const delivered = await deliveredTo(reads, forwarded.endpoint_id).catch(() => undefined)
      if (delivered !== undefined) forwarded.delivered = delivered
    }
    leftBehind = await cleanUp(state, [...forwardedTo, ...state.onReceiver])
    // stopped during the cleanup, which it then cut short
    if (signal?.aborted) interrupted = true
  }
  const count = (test: (s: StepReport) => boolean) => steps.filter(test).length
  const failed = count((s) => !s.ok && !s.skipped)
  const skippedCount = count((s) => s.skipped === true)
  return {
    scenario: scenario.name,
    run: state.run,
    ok: failed === 0 && skippedCount === 0 && !interrupted,
    passed: count((s) => s.ok),
    failed,
    skipped: skippedCount,
    steps,
    ...(forwarded ? {forwarded_to: forwarded} : {}),
    ...(leftBehind.length > 0 ? {left_behind: leftBehind} : {}),
    ...(interrupted ? {interrupted: true as const} : {}),
  }
}

/**
 * Runs a step, or reports it interrupted when the run is stopped while it is under way (docs/scenarios.md,
 * "Running"). One that may make an endpoint on the receiver first has ANSWER_GRACE_MS to answer, so that the
 * cleanup knows that endpoint; its report is then what it came to.
 */
async function runOrStop(
  state: RunState,
  index: number,
  step: ScenarioStep,
  stopped: Promise<never>,
  wait: NonNullable<RunOptions['wait']>,
): Promise<StepReport> {
  const underWay = runStep(state, index, step)
  try {
    return await wait(stepText(index, step), Promise.race([underWay, stopped]))
  } catch (error) {
    if (!state.signal?.aborted) throw error
    if (!MAKES_ENDPOINTS.has(step.kind)) return unfinished(index, step, 'under way')
    const text = `Interrupted: ${stepText(index, step)} has a moment to answer`
    const answered = await wait(text, within(ANSWER_GRACE_MS, underWay))
    if (answered) return answered
    // no answer yet: the server may have made the endpoint all the same, and lists it
    const looked = state.receiver ? await wait(text, within(ANSWER_GRACE_MS, findOnReceiver(state))) : true
    const report = unfinished(index, step, 'under way')
    return looked ? report : {...report, error: `${report.error}: ${UNSEEN}`}
  }
}

/** Why a step stopped under way may have left an endpoint the cleanup could not know of. */
const UNSEEN =
  "the server answered neither it nor the run's look for its endpoints: one it made on the run's receiver may be " +
  'left (`tablepay webhooks list`)'

/** The account's endpoints on the run's receiver, each noted for the cleanup, as a step's answer notes one. */
async function findOnReceiver(state: RunState): Promise<true> {
  const list = (after?: string) =>
    pastRateLimit(() => state.client.listWebhookEndpoints({limit: 100, starting_after: after}), state.signal)
  let page = await list()
  for (;;) {
    for (const endpoint of page.data) madeEndpoint(state, endpoint)
    if (!page.has_more || !page.next_cursor) return true
    page = await list(page.next_cursor)
  }
}

/** The kinds of step whose request may make an endpoint on the run's receiver (`madeEndpoint`). */
const MAKES_ENDPOINTS: ReadonlySet<StepKind> = new Set(['webhook_endpoint', 'request'])

/** What `work` resolves with within `ms`; undefined if it takes longer or fails. */
const within = <T>(ms: number, work: Promise<T>): Promise<T | undefined> =>
  Promise.race([work.catch(() => undefined), sleep(ms, undefined, {ref: false})])

/**
 * Whether a delivery to the endpoint `id` succeeded, undefined when it has none: a receiver that never answered
 * 2xx (a wrong port, none running) is worth a word, since the run's outcome does not depend on it.
 */
async function deliveredTo(client: TablepayClient, id: string): Promise<boolean | undefined> {
  const [made, succeeded] = await Promise.all([
    client.listDeliveries({endpoint_id: id, limit: 1}),
    client.listDeliveries({endpoint_id: id, status: 'succeeded', limit: 1}),
  ])
  return made.data.length === 0 ? undefined : succeeded.data.length > 0
}

/** `${location}`: the account's first location, the oldest, which a list (newest first) gives last. */
async function firstLocation(client: TablepayClient): Promise<string | undefined> {
  let page = await client.listLocations({limit: 100})
  while (page.has_more && page.next_cursor)
    page = await client.listLocations({limit: 100, starting_after: page.next_cursor})
  return page.data.at(-1)?.id
}

/** The builtin references a step's input uses. */
const namesIn = (input: unknown) =>
  stringsIn(input).flatMap(({text}) => referencesIn(text).flatMap((r) => ('name' in r ? [r.name] : [])))

/**
 * A step that did not run to its end: skipped, an action before it having failed, or when the run was
 * `interrupted` before it began or while it was under way.
 */
function unfinished(index: number, step: ScenarioStep, interrupted?: 'skipped' | 'under way'): StepReport {
  const base = {step: index + 1, ...idOf(step), kind: step.kind, title: step.kind, ok: false, differences: []}
  if (interrupted === 'under way') return {...base, error: 'interrupted while under way'}
  return {...base, skipped: true, ...(interrupted ? {error: 'the run was interrupted'} : {})}
}

const idOf = (step: ScenarioStep) => (step.id === undefined ? {} : {id: step.id})

/** A step under way, as a wait names it: `Step 7 (paid): expect_event`. */
const stepText = (index: number, step: ScenarioStep) => `Step ${stepName(index + 1, step.id)}: ${step.kind}`

async function runStep(state: RunState, index: number, step: ScenarioStep): Promise<StepReport> {
  const base = {step: index + 1, ...idOf(step), kind: step.kind}
  let resolved: ScenarioStep
  try {
    resolved = {...step, input: resolveReferences(step.input, (ref) => valueOf(state, ref))} as ScenarioStep
  } catch (error) {
    if (!(error instanceof UnresolvedReferenceError)) throw error
    return {...base, title: step.kind, ok: false, differences: [], error: error.message}
  }
  if (resolved.kind === 'expect_event') {
    const {event, ...outcome} = await awaitEvent(state.reads, resolved.input, state.events!, state.signal)
    if (event && step.id !== undefined) state.answers.set(step.id, event)
    return {...base, ...outcome}
  }
  let request: StepRequest
  try {
    request = stepRequest(resolved)!
  } catch (error) {
    // an id of the file, or a reference resolved to one, that no path can carry (routePath)
    if (!(error instanceof UnsendableSegmentError)) throw error
    return {
      ...base,
      title: step.kind,
      ok: false,
      differences: [],
      error: `${error.message}: check the ids and references in it.`,
    }
  }
  const title =
    resolved.kind === 'advance' ? `advance ${resolved.input}` : `${step.kind} ${request.method} ${request.path}`
  // a reference resolved to `.` or `..`: the request would reach another route (domain/scenario.ts, `Path`)
  if (hasDotSegment(request.path)) {
    const error = `Its path ${request.path} has a . or .. segment, which would send it to another route: check the references in it.`
    return {...base, title, ok: false, differences: [], error}
  }
  // a reference resolved to text no header can carry (domain/scenario.ts, `isHeaderValue`)
  const keyed = request.idempotencyKey === undefined ? {} : {'Idempotency-Key': request.idempotencyKey}
  const [unsendable] = Object.entries({...request.headers, ...keyed}).filter(([, value]) => !isHeaderValue(value))
  if (unsendable) {
    const error = `Its ${unsendable[0]} header holds a line break, a control character or one past U+00FF, which no request can send: check the references in it.`
    return {...base, title, ok: false, differences: [], error}
  }
  const expected = resolved.kind === 'expect' ? resolved.input.status : step.status
  let answer: RawAnswer | undefined
  try {
    answer = await state.client.request(request.method, request.path, request)
  } catch (error) {
    // an answer, with its status, but one that never ends: no step can read it, whatever status it expects
    if (error instanceof TablepayEventStreamError) {
      const {status} = error
      return {...base, title, ok: false, status, differences: statusDiffers(expected, status), error: streamed(status)}
    }
    if (!(error instanceof TablepayError)) throw error
    const unmet = statusDiffers(expected, null)
    return {...base, title, ok: unmet.length === 0, status: null, differences: unmet, error: error.message}
  }
  if (step.id !== undefined) state.answers.set(step.id, answer.data)
  // a `request` may make one on the receiver, or move one there, as a `webhook_endpoint` step does
  if (isSuccess(answer.status) && fieldOf(answer.data, ['object']) === 'webhook_endpoint')
    madeEndpoint(state, answer.data)
  if (isRestore(request, answer)) {
    const unlisted = await afterRestore(state).then(
      () => undefined,
      (error: unknown) => (error instanceof TablepayError ? error : Promise.reject(error)),
    )
    // the endpoints it put back on the receiver are unknown to the cleanup: an action failed, the run ends
    if (unlisted)
      return {...base, title, ok: false, status: answer.status, differences: [], error: unlistedAfterRestore(unlisted)}
  }
  const differences = [
    ...statusDiffers(expected, answer.status),
    ...(resolved.kind === 'expect' && resolved.input.json !== undefined
      ? subsetDifferences(resolved.input.json, answer.data)
      : []),
  ]
  const refused = !isSuccess(answer.status) && !holds(expected, answer.status) ? errorOf(answer.data) : undefined
  return {...base, title, ok: differences.length === 0, status: answer.status, differences, ...refused}
}

const isSuccess = (status: number) => status >= 200 && status < 300

/** Whether a step's request got the status it expects: `undefined` any 2xx, `null` no answer at all. */
const holds = (expected: number | null | undefined, got: number | null) =>
  expected === undefined ? got !== null && isSuccess(got) : got === expected

/** Why a step answered with an event stream (`/sim/stream`) fails, whatever its status. */
const streamed = (status: number) =>
  `The server answered ${status} with an event stream, which never ends: a step cannot read one (\`tablepay listen\` does).`

/**
 * A restore (a `restore` step's, or a `request`'s) puts back the endpoints as they were saved, some perhaps
 * on the receiver, the events (those of the run are made after it, not the snapshot's) and the locations.
 */
async function afterRestore(state: RunState): Promise<void> {
  if (state.receiver) await findOnReceiver(state)
  if (state.events) state.events = await RunEvents.from(state.reads)
  // `${location}` is used (set at the start, if to undefined)
  if ('location' in state) state.location = await firstLocation(state.reads)
}

/** Why a restore step fails when the run could not read the account after it (afterRestore). */
const unlistedAfterRestore = (error: TablepayError) =>
  `Restored, but the run could not read the account after it, so an endpoint the snapshot put back on its receiver may be left (\`tablepay webhooks list\`): ${error.message}`

/**
 * Whether `answer` is a snapshot of the run's account restored by `request` (`POST /sim/snapshots/{name}/restore`
 * with the run's key: one with an `Authorization` of its own restores another account's).
 */
const isRestore = (request: {method: string; path: string; headers?: Record<string, string>}, answer: RawAnswer) =>
  isSuccess(answer.status) &&
  request.method === 'POST' &&
  /\/restore\/?$/.test(request.path.split('?')[0]!) &&
  fieldOf(answer.data, ['object']) === 'snapshot' &&
  !Object.keys(request.headers ?? {}).some((name) => name.toLowerCase() === 'authorization')

/** The status a step's request got, as a difference when it is not the one expected. */
function statusDiffers(expected: number | null | undefined, got: number | null): SubsetDifference[] {
  return holds(expected, got) ? [] : [{path: 'status', expected: expected === undefined ? '2xx' : expected, got}]
}

/**
 * The API's error, as a step's `error`: with its details when there are several, as the message quotes only the
 * first ("(and 4 more, see details)").
 */
function errorOf(data: unknown): {error: string} | undefined {
  const error = fieldOf(data, ['error']) as {code?: string; message?: string; details?: unknown} | undefined
  if (!error?.code) return undefined
  const details = Array.isArray(error.details) ? (error.details as {path?: unknown; message?: unknown}[]) : []
  const listed = details.map(({path, message}) => `${String(path)}: ${String(message)}`).join('; ')
  return {error: `${error.code}: ${error.message ?? ''}${details.length > 1 ? ` Details: ${listed}.` : ''}`}
}

/**
 * An endpoint a step answered with (made, changed or read): the run's receiver accepts what its secret signs,
 * and one on the receiver goes with it, whichever step put it there; one a step moved off it again stays.
 */
function madeEndpoint(state: RunState, data: unknown): void {
  const [id, url, secret] = ['id', 'url', 'secret'].map((field) => fieldOf(data, [field]))
  if (typeof secret === 'string') state.receiver?.trust(secret)
  const receiver = state.receiver?.url
  if (typeof id !== 'string' || typeof url !== 'string' || receiver === undefined) return
  state.onReceiver = state.onReceiver.filter((endpoint) => endpoint.id !== id)
  if (url === receiver || url.startsWith(`${receiver}/`)) state.onReceiver.push({id, url})
}

function valueOf(state: RunState, {name, field}: Reference): unknown {
  if (name === 'run') return state.run
  if (name === 'location') return state.location
  if (name === 'receiver') return state.receiver?.url
  return state.answers.has(name) ? fieldOf(state.answers.get(name), field) : undefined
}
