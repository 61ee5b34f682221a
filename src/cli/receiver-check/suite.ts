import {readFile} from 'node:fs/promises'
import {type AttemptResult, succeeded} from '../../domain/deliveries.js'
import {renderEvent} from '../../domain/events.js'
import {randomToken} from '../../domain/ids.js'
import {applyPush} from '../../domain/push.js'
import type {CheckRecord, LocationRecord} from '../../domain/records.js'
import {CheckPush} from '../../domain/schemas.js'
import {deliveryHeaders, postDelivery} from '../../webhooks/send.js'
import {DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER} from '../../webhooks/signature.js'

type Envelope = ReturnType<typeof renderEvent>

interface Delivery {
  body: string
  headers: Record<string, string>
}

/** One conformance case: deliveries sent in turn; the last one is judged, the ones before must be accepted. */
interface Case {
  id: string
  title: string
  expected: 'accepted' | 'rejected'
  /** What a receiver that fails this case gets wrong. */
  why: string
  /** Made just before sending, so every signature is made at the time it claims. */
  deliveries: (now: number) => Delivery[]
}

export interface CaseResult {
  id: string
  title: string
  expected: 'accepted' | 'rejected'
  /** The judged delivery's answer; null when there was none. */
  status_code: number | null
  /** Why there was no 2xx: no answer at all, a timeout, a redirect, a status. */
  error: string | null
  duration_ms: number
  passed: boolean
  reason: string
}

/** Far enough past the reference tolerance that a few seconds of clock skew between the two machines do not matter. */
export const SKEW_SECONDS = DEFAULT_TOLERANCE_SECONDS + 60

interface Story {
  /** `check.created` of the fixture open.json, three minutes ago. */
  created: Envelope
  /** `check.updated` of the same check to updated.json, a minute later. */
  updated: Envelope
  /** `check.updated` of the same check to closed.json, a minute after that: newer than `updated`. */
  newer: Envelope
}

/**
 * Realistic check events, as the server makes them: the fixtures pushed
 * through the domain core. Each call of the returned function tells the
 * story of a new check, so that no case sees another case's check or event.
 */
async function checkStories(): Promise<() => Story> {
  const fixture = async (name: string) =>
    CheckPush.parse(
      JSON.parse(await readFile(new URL(`../../../fixtures/checks/${name}.json`, import.meta.url), 'utf8')),
    )
  const [open, updated, closed] = await Promise.all([fixture('open'), fixture('updated'), fixture('closed')])
  const location: LocationRecord = {
    id: 'loc_main',
    object: 'location',
    name: 'Main Room',
    timezone: 'Europe/Paris',
    currency: 'EUR',
    created_at: new Date().toISOString(),
    account_id: 'acct_demo',
  }
  const push = (body: CheckPush, minutesAgo: number, existing?: CheckRecord) =>
    applyPush({
      accountId: 'acct_demo',
      externalId: 't12',
      body,
      locations: [location],
      existing,
      now: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
      baseUrl: 'http://127.0.0.1:4747',
    })
  return () => {
    const first = push(open, 3)
    const second = push(updated, 2, first.check)
    const third = push(closed, 1, second.check)
    return {
      created: renderEvent(first.events[0]!),
      updated: renderEvent(second.events[0]!),
      newer: renderEvent(third.events.find((e) => e.type === 'check.updated')!),
    }
  }
}

/** JSON as other serializers write it: indented, non-ASCII as \u escapes. Same value, other bytes. */
const otherSerialization = (value: unknown) =>
  JSON.stringify(value, null, 2).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )

function buildCases(secret: string, story: () => Story): Case[] {
  // as the dispatcher sends it: compact JSON, signed now, attempt 1
  const delivery = (
    event: Envelope,
    options: {body?: string; attempt?: number; timestamp?: number; secret?: string | string[]} = {},
  ): Delivery => {
    const body = options.body ?? JSON.stringify(event)
    return {
      body,
      headers: deliveryHeaders(body, options.secret ?? secret, event, options.attempt ?? 1, options.timestamp),
    }
  }
  const withSignature = (d: Delivery, value: string | undefined): Delivery => {
    const {[SIGNATURE_HEADER]: _signature, ...headers} = d.headers
    return {body: d.body, headers: value === undefined ? headers : {...headers, [SIGNATURE_HEADER]: value}}
  }
  const created = () => story().created
  const {updated: reformatted} = story()
  const {created: again} = story()
  const older = story()
  const late = story()
  const rotating = created()
  const forged = created()
  const unpaid = {...forged, data: {...forged.data, amount_due_cents: 0, payment_status: 'paid'}}
  return [
    {
      id: 'valid',
      title: 'a valid signed delivery',
      expected: 'accepted',
      why: 'a correctly signed delivery must get a 2xx within 10 s, or it is retried',
      deliveries: () => [delivery(created())],
    },
    {
      id: 'raw_body',
      title: 'a valid delivery in other JSON formatting',
      expected: 'accepted',
      why: 'verify the raw body as received: JSON.parse then JSON.stringify changes the bytes, and the signature no longer matches',
      deliveries: () => [delivery(reformatted, {body: otherSerialization(reformatted)})],
    },
    {
      id: 'two_signatures',
      title: 'two v1 signatures, yours second (a secret rotation)',
      expected: 'accepted',
      why: 'while a secret rotates, deliveries carry a v1 per secret: accept when any v1 matches, not only the first',
      deliveries: () => [delivery(rotating, {secret: [`whsec_${randomToken(32)}`, secret]})],
    },
    {
      id: 'duplicate',
      title: 'the same event delivered twice',
      expected: 'accepted',
      why: 'delivery is at-least-once: answer a 2xx to an event id already handled (and do nothing with it)',
      deliveries: () => [delivery(again), delivery(again, {attempt: 2})],
    },
    {
      id: 'older_state',
      title: 'an older state after a newer one',
      expected: 'accepted',
      why: 'order is not guaranteed: answer a 2xx to an older state, and keep the newer one',
      deliveries: () => [delivery(older.updated), delivery(older.created)],
    },
    {
      id: 'older_update',
      title: 'an older check.updated after a newer one',
      expected: 'accepted',
      why: 'order is not guaranteed: answer a 2xx to an update older than one already handled, and keep the newer state',
      deliveries: () => [delivery(late.created), delivery(late.newer), delivery(late.updated)],
    },
    {
      id: 'tampered_body',
      title: 'a body changed after signing',
      expected: 'rejected',
      why: 'the body no longer matches its signature (it was marked paid on the way): refuse it',
      deliveries: () => [{...delivery(forged), body: JSON.stringify(unpaid)}],
    },
    {
      id: 'wrong_secret',
      title: 'a delivery signed with another secret',
      expected: 'rejected',
      why: 'it was not signed with your secret: refuse it',
      deliveries: () => [delivery(created(), {secret: `whsec_${randomToken(32)}`})],
    },
    {
      id: 'missing_header',
      title: `no ${SIGNATURE_HEADER} header`,
      expected: 'rejected',
      why: 'an unsigned delivery is not from Tablepay: refuse it',
      deliveries: () => [withSignature(delivery(created()), undefined)],
    },
    {
      id: 'malformed_header',
      title: 'a header that is not t=…,v1=…',
      expected: 'rejected',
      why: 'the header is not t=<unix seconds>,v1=<hex>: refuse it',
      deliveries: () => {
        const d = delivery(created())
        return [withSignature(d, d.headers[SIGNATURE_HEADER]!.split('v1=')[1])]
      },
    },
    {
      id: 'timestamp_past',
      title: `signed ${SKEW_SECONDS} s ago`,
      expected: 'rejected',
      why: `a signature older than the ${DEFAULT_TOLERANCE_SECONDS} s tolerance may be a replay: refuse it`,
      deliveries: (now) => [delivery(created(), {timestamp: now - SKEW_SECONDS})],
    },
    {
      id: 'timestamp_future',
      title: `signed ${SKEW_SECONDS} s in the future`,
      expected: 'rejected',
      why: `the ${DEFAULT_TOLERANCE_SECONDS} s tolerance applies both ways: refuse it`,
      deliveries: (now) => [delivery(created(), {timestamp: now + SKEW_SECONDS})],
    },
  ]
}

const answer = (result: AttemptResult) => {
  const said = result.response_body?.trim().replace(/\s+/g, ' ').slice(0, 60)
  return `${result.status_code}${said ? ` (${said})` : ''}`
}

function judge(c: Case, result: AttemptResult, setup?: AttemptResult): Omit<CaseResult, 'id' | 'title' | 'expected'> {
  const base = {status_code: result.status_code, error: result.error, duration_ms: result.duration_ms}
  if (setup)
    return {
      ...base,
      passed: false,
      reason: `the first delivery was not accepted (${setup.status_code === null ? setup.error : answer(setup)}): ${c.why}`,
    }
  if (result.status_code === null)
    return {
      ...base,
      passed: false,
      reason: `no answer (${result.error}): ${c.expected === 'accepted' ? c.why : 'refuse it with a 4xx'}`,
    }
  if (c.expected === 'accepted') {
    return succeeded(result)
      ? {...base, passed: true, reason: `answered ${result.status_code} in ${result.duration_ms} ms`}
      : {...base, passed: false, reason: `answered ${answer(result)}: ${c.why}`}
  }
  return result.status_code >= 200 && result.status_code < 300
    ? {...base, passed: false, reason: `accepted with ${answer(result)}: ${c.why}`}
    : {...base, passed: true, reason: `refused with ${answer(result)}`}
}

/**
 * `receiver check`: sends each case's deliveries to the receiver at `url`,
 * one after another, with the headers the dispatcher sends, and judges each
 * answer. Only what a receiver answers is observable: how it compares
 * signatures or what it stores is not. A receiver that does not answer the
 * first case is judged on that one alone: it is out of reach.
 *
 * @example
 * const results = await runReceiverSuite('http://localhost:3000/webhooks', 'whsec_…')
 * results.every((r) => r.passed)
 */
export async function runReceiverSuite(
  url: string,
  secret: string,
  {timeoutMs}: {timeoutMs?: number} = {},
): Promise<CaseResult[]> {
  const cases = buildCases(secret, await checkStories())
  const results: CaseResult[] = []
  for (const c of cases) {
    let setup: AttemptResult | undefined
    let last!: AttemptResult
    const deliveries = c.deliveries(Math.floor(Date.now() / 1000))
    for (const [i, d] of deliveries.entries()) {
      last = await postDelivery(url, d.body, d.headers, timeoutMs)
      if (i < deliveries.length - 1 && !succeeded(last)) setup ??= last
    }
    results.push({id: c.id, title: c.title, expected: c.expected, ...judge(c, last, setup)})
    // nothing answered the first case: each of the others would wait as long for nothing (10 s each)
    if (results.length === 1 && last.status_code === null) break
  }
  return results
}
