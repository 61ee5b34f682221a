import {setTimeout as sleep} from 'node:timers/promises'
import type {TablepayClient} from '../client/client.js'
import {TablepayApiError, TablepayError} from '../client/errors.js'
import type {ScenarioReceiver} from './receiver.js'
import type {LeftBehind} from './run.js'

/**
 * How long a request under way when the run is stopped may take to answer (the setup's, a step's that may make an
 * endpoint on the receiver, the cleanup's deletes): a server that does not answer still lets the run end.
 */
export const ANSWER_GRACE_MS = 2000

/**
 * Closes the run's receiver and deletes `endpoints`, each whatever becomes
 * of the others, so a failure loses neither the rest nor the report: the
 * endpoints still there. One already gone (a `restore`, a step's DELETE) is
 * what was wanted. Once the run is stopped, a delete has ANSWER_GRACE_MS to
 * answer: a server that does not answer leaves the endpoint, reported.
 */
export async function cleanUp(
  {client, receiver, signal}: {client: TablepayClient; receiver?: ScenarioReceiver; signal?: AbortSignal},
  endpoints: {id: string; url: string}[],
): Promise<LeftBehind[]> {
  const [, ...deleted] = await Promise.allSettled([
    // a receiver that fails to close holds a loopback port until the process ends: nothing to report
    receiver?.close(),
    ...endpoints.map(({id}) =>
      graceOnStop(
        pastRateLimit(() => client.deleteWebhookEndpoint(id), signal),
        signal,
      ),
    ),
  ])
  return endpoints.flatMap(({id, url}, i) => {
    const outcome = deleted[i]!
    if (outcome.status === 'fulfilled') return []
    const {reason} = outcome
    if (reason instanceof TablepayApiError && reason.status === 404) return []
    const error = reason instanceof TablepayError ? `${reason.code}: ${reason.message}` : String(reason)
    return [{endpoint_id: id, url, error}]
  })
}

/** How many times a request is sent that `serve --rate-limit` refuses, and the longest Retry-After waited between. */
const RATE_LIMITED_TRIES = 3
const LONGEST_WAIT_S = 5

/**
 * `call`'s answer, a 429 waited out (its Retry-After) and the request sent again: the run's writes, and its
 * look for its endpoints, spend the rate limit as every client's do, `X-Tablepay-Client` sparing the run's
 * other reads alone (docs/api.md). Not once the run is stopped, which gives its cleanup no more than
 * ANSWER_GRACE_MS.
 */
export async function pastRateLimit<T>(call: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await call()
    } catch (error) {
      const limited = error instanceof TablepayApiError && error.status === 429
      if (!limited || tries === RATE_LIMITED_TRIES || signal?.aborted) throw error
      const waitS = Math.min(error.retryAfterS ?? 1, LONGEST_WAIT_S)
      // stopped meanwhile: the refusal is what the report says
      await sleep(waitS * 1000, undefined, {signal}).catch(() => Promise.reject(error))
    }
  }
}

/** `work`, failed with `interrupted` if it has not ended ANSWER_GRACE_MS after `signal` aborts (before or since). */
function graceOnStop<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work
  const late = new Promise<never>((_, reject) => {
    const start = () =>
      sleep(ANSWER_GRACE_MS, undefined, {ref: false}).then(() =>
        reject(new TablepayError('interrupted', `no answer ${ANSWER_GRACE_MS / 1000} s after the run was stopped`)),
      )
    if (signal.aborted) void start()
    else signal.addEventListener('abort', () => void start(), {once: true})
  })
  return Promise.race([work, late])
}
