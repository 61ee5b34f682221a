import {describe, expect, it} from 'vitest'
import {checkChanges} from '../../src/domain/check-changes.js'
import {drawAt, nextRandom, pathMatches} from '../../src/domain/faults.js'
import {takeToken} from '../../src/domain/rate-limit.js'
import {
  BODY_CAP,
  boundedEntry,
  keptBody,
  logBody,
  renderRequest,
  type RequestTrace,
  traceOf,
} from '../../src/domain/request-log.js'
import {redactSecrets} from '../../src/domain/redaction.js'
import {checkRecord} from '../helpers/checks.js'
import {requestTrace} from '../helpers/request-log.js'

describe('checkChanges', () => {
  const item = (external_id: string, price_cents: number, note: string | null = null) => ({
    external_id,
    name: `Item ${external_id}`,
    quantity: 1,
    price_cents,
    note,
    claimed_quantity: 0,
  })

  it('says what moved: status, table, totals, items added, removed and changed field by field', () => {
    const before = {...checkRecord(1), items: [item('a', 100), item('b', 200)]}
    const after = {
      ...before,
      status: 'closed' as const,
      table: {number: '7'},
      totals: {subtotal_cents: 5, tax_cents: 0, total_cents: 5},
      items: [item('a', 150, 'extra'), item('c', 300)],
    }
    expect(checkChanges(before, after)).toEqual({
      status: ['open', 'closed'],
      table: [{number: '1'}, {number: '7'}],
      totals: [before.totals, after.totals],
      items: {
        added: ['c'],
        removed: ['b'],
        changed: [{external_id: 'a', fields: {price_cents: [100, 150], note: [null, 'extra']}}],
      },
    })
  })

  it('is empty for two equal checks', () => {
    expect(checkChanges(checkRecord(2), checkRecord(2))).toEqual({items: {added: [], removed: [], changed: []}})
  })
})

describe('the request log bodies', () => {
  it('redacts secret values at any depth and whsec_ tokens anywhere', () => {
    expect(redactSecrets({a: [{secret: 'x'}], note: 'key whsec_abc here'})).toEqual({
      a: [{secret: '[redacted]'}],
      note: 'key [redacted] here',
    })
    expect(logBody('{"secret": "whsec_1", "broken"').body).toBe('{"secret": "[redacted]", "broken"')
  })

  it('redacts a body kept as text whatever its escapes hide: a field named secret, a token', () => {
    // a parser reads `"sec\u0072et"` as secret and `whsec\u005f` as whsec_: kept as text, they are redacted all the same
    const text = '{"url": "http://h/x", "sec\\u0072et": "s1", "note": "whsec\\u005fREAL1", "a\\"b": "tp_test\\u005fk",}'
    expect(logBody(text).body).toBe(
      '{"url": "http://h/x", "sec\\u0072et": "[redacted]", "note": "[redacted]", "a\\"b": "[redacted]",}',
    )
    expect(logBody('{"note": "caf\\u00e9", "x": 1,}').body).toBe('{"note": "caf\\u00e9", "x": 1,}')
  })

  it('keeps as text, secrets redacted, a body nested deeper than any of the API: written out, it would overflow the stack', () => {
    const deep = (levels: number) => `${'['.repeat(levels)}{"secret": "whsec_1"}${']'.repeat(levels)}`
    expect(logBody(deep(63))).toEqual({body: JSON.parse(deep(63).replace('whsec_1', '[redacted]')), truncated: false})
    expect(logBody(deep(64))).toEqual({body: deep(64).replace('whsec_1', '[redacted]'), truncated: false})
  })

  it('keeps JSON parsed, text as text, and cuts at 64 KiB with truncated', () => {
    expect(logBody('{"a":1}')).toEqual({body: {a: 1}, truncated: false})
    expect(logBody('plain')).toEqual({body: 'plain', truncated: false})
    expect(logBody(undefined)).toEqual({body: null, truncated: false})
    const long = JSON.stringify({text: 'x'.repeat(BODY_CAP)})
    expect(logBody(long)).toEqual({body: long.slice(0, BODY_CAP), truncated: true})
  })

  it('keeps a body up to 1 MiB redacted as parsed, escapes and all, and none of a larger one', () => {
    const pad = 'x'.repeat(BODY_CAP)
    const escaped = `{"secr\\u0065t": "s1", "previous_secret": "whsec_a\\/b", "pad": "${pad}"}`
    const kept = keptBody(escaped) as {body: string; truncated: boolean}
    expect([
      kept.truncated,
      kept.body.startsWith('{"secret":"[redacted]","previous_secret":"[redacted]","pad":"xx'),
    ]).toEqual([true, true])
    // 125 MB of 1e20: parsed, 25 million numbers; written again, 550 million characters, past V8's longest string
    const large = `[${'1e20,'.repeat(25_000_000)}1]`
    expect(keptBody(large)).toEqual({
      body: `[not kept: a body of ${large.length} characters; the log keeps those up to 1 MiB]`,
      truncated: true,
    })
  })
})

describe('fault path patterns', () => {
  it('* is one segment, ** the rest, a trailing slash does not matter', () => {
    expect(pathMatches('/v1/checks/external/*', '/v1/checks/external/t12')).toBe(true)
    expect(pathMatches('/v1/checks/external/*', '/v1/checks/external/t12/')).toBe(true)
    expect(pathMatches('/v1/checks/external/*', '/v1/checks/external')).toBe(false)
    expect(pathMatches('/v1/checks/*', '/v1/checks/chk_1/claims')).toBe(false)
    expect(pathMatches('/v1/checks/**', '/v1/checks/chk_1/claims')).toBe(true)
    expect(pathMatches('/v1/checks/**', '/v1/checks')).toBe(false)
    expect(pathMatches('/v1/locations', '/v1/locations')).toBe(true)
  })

  it('draws the same sequence from the same seed', () => {
    const draw = (seed: number, n: number) => {
      const out: number[] = []
      for (let state = seed, i = 0; i < n; i++) {
        const next = nextRandom(state)
        out.push(next.value)
        state = next.state
      }
      return out
    }
    expect(draw(7, 5)).toEqual(draw(7, 5))
    expect(draw(7, 5)).not.toEqual(draw(8, 5))
    for (const value of draw(1, 100)) expect(value >= 0 && value < 1).toBe(true)
  })

  it('finds any draw of a seed without the ones before it', () => {
    for (const seed of [0, 7, 2 ** 32 - 1]) {
      const drawn = [] as number[]
      for (let state = seed, i = 0; i < 50; i++) {
        const next = nextRandom(state)
        drawn.push(next.value)
        state = next.state
      }
      expect(drawn.map((_, i) => drawAt(seed, i + 1))).toEqual(drawn)
    }
  })
})

describe('the token bucket', () => {
  it('starts full, refuses the burst + 1st, and refills with time', () => {
    let bucket
    const taken = []
    for (let i = 0; i < 4; i++) {
      const take = takeToken(bucket, 3, 0)
      bucket = take.bucket
      taken.push([take.allowed, take.remaining, take.retryAfterS])
    }
    expect(taken).toEqual([
      [true, 2, 0],
      [true, 1, 0],
      [true, 0, 0],
      [false, 0, 1],
    ])
    expect(takeToken(bucket, 3, 333).allowed).toBe(false)
    expect(takeToken(bucket, 3, 334).allowed).toBe(true)
  })
})

describe('request log entries sent to other instances', () => {
  const trace = (body: string): RequestTrace =>
    requestTrace({
      id: 'req_1',
      method: 'PUT',
      path: '/v1/checks/external/t1',
      status: 201,
      duration_ms: 3,
      push_result: 'created',
      check_id: 'chk_1',
      request_body: body,
      response_body: '{"ok":true}',
    })
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

  it('an entry that fits goes as it is, and a trace made of it renders it again', () => {
    const entry = renderRequest(trace('{"a":1}'))
    expect(boundedEntry(entry, 7000)).toBe(entry)
    expect(renderRequest(traceOf(entry))).toEqual(entry)
  })

  it("redacts a whsec_ token in the error's message too, as in the bodies", () => {
    const refused = {
      ...trace('{}'),
      status: 422,
      error: {code: 'validation_failed', message: 'secret whsec_ab: too short'},
    }
    expect(renderRequest(refused).error).toEqual({code: 'validation_failed', message: 'secret [redacted]: too short'})
  })

  it('a larger one has its bodies cut to the start of their text, marked truncated, within the bytes given', () => {
    const entry = renderRequest(trace(JSON.stringify({note: 'é'.repeat(5000)})))
    const cut = boundedEntry(entry, 7000)!
    expect(bytes(cut)).toBeLessThanOrEqual(7000)
    expect(cut).toMatchObject({request_body_truncated: true, response_body: {ok: true}, response_body_truncated: false})
    expect(JSON.stringify(entry.request_body).startsWith(cut.request_body as string)).toBe(true)
    expect(boundedEntry(entry, 100)).toBeUndefined()
  })
})
