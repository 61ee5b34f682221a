import {describe, expect, it} from 'vitest'
import {
  CATCH_UP_MARGIN_MS,
  followLiveStream,
  MAX_WAIT_MS,
  openReconnectingStream,
  waitAfter,
} from '../../src/cli/reconnecting-stream.js'
import {TablepayApiError, TablepayConnectionError, TablepayTimeoutError} from '../../src/client/errors.js'

interface Rec {
  id: string
  at: number
}

/** A stream that yields `records`, then breaks as the client's does when its connection is lost. */
async function* breaking(records: Rec[]): AsyncGenerator<Rec> {
  yield* records
  throw new TablepayConnectionError('http://127.0.0.1:9/v1', new TypeError('terminated'))
}

/** A stream that yields `records`, then stays open until `signal` aborts. */
async function* open(records: Rec[], signal: AbortSignal): AsyncGenerator<Rec> {
  yield* records
  if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve))
}

// records made after the feed started: their wall-clock times are later than its start
const t0 = Date.now() + 60_000
const rec = (id: string, after: number): Rec => ({id, at: t0 + after})

describe('followLiveStream', () => {
  it('after a drop, yields what the catch-up found that it had not yielded, then the new stream without its copies', async () => {
    const stop = new AbortController()
    const streams = [
      () => breaking([rec('a', 10)]),
      // b was made before this stream opened, c after: the catch-up holds both, the stream c again, then d
      () => open([rec('c', 30), rec('d', 40)], stop.signal),
    ]
    const asked: number[] = []
    const events: string[] = []
    const records = await followLiveStream(
      async () => streams.shift()!(),
      {
        since: async (since) => {
          asked.push(since)
          // what a list answers: everything from `since` on, the last record yielded included
          return [rec('a', 10), rec('b', 20), rec('c', 30)].filter((r) => r.at >= since)
        },
        key: (r) => r.id,
        time: (r) => r.at,
      },
      {
        signal: stop.signal,
        onDrop: (reason) => events.push(`drop: ${reason}`),
        onReconnect: (missed) => events.push(`reconnect: ${missed}`),
      },
    )
    const seen: string[] = []
    for await (const record of records) {
      seen.push(record.id)
      if (record.id === 'd') stop.abort()
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd'])
    // from a little before the last record yielded: another instance's change may be heard late, or not at all
    expect(asked).toEqual([t0 + 10 - CATCH_UP_MARGIN_MS])
    expect(events).toEqual([expect.stringMatching(/^drop: /), 'reconnect: 2'])
  })

  it('after a drop, yields a record older than the last one that the stream never carried, and none from before its start', async () => {
    const stop = new AbortController()
    const started = Date.now()
    const streams = [() => breaking([rec('a', 10), rec('c', 30)]), () => open([], stop.signal)]
    const asked: number[] = []
    const records = await followLiveStream(
      async () => streams.shift()!(),
      {
        since: async (since) => {
          asked.push(since)
          // b was made between a and c, and its message never came; z came before the feed started
          return [{id: 'z', at: started - 1}, rec('a', 10), rec('b', 20), rec('c', 30)].filter((r) => r.at >= since)
        },
        key: (r) => r.id,
        time: (r) => r.at,
      },
      {signal: stop.signal, onDrop: () => {}, onReconnect: () => {}},
    )
    const seen: string[] = []
    for await (const record of records) {
      seen.push(record.id)
      if (record.id === 'b') stop.abort()
    }
    expect(seen).toEqual(['a', 'c', 'b'])
    expect(asked[0]).toBeGreaterThanOrEqual(started)
  })
})

describe('openReconnectingStream', () => {
  const reopening = async (failure: Error) => {
    const stop = new AbortController()
    const opens = [
      async () => breaking([rec('a', 10)]),
      // the server, back but too busy to answer in time, or refusing the key
      async () => Promise.reject(failure),
      async () => open([rec('b', 20)], stop.signal),
    ]
    const records = await openReconnectingStream(async () => opens.shift()!(), {
      signal: stop.signal,
      onDrop: () => {},
      onReconnect: async () => {},
    })
    const seen: string[] = []
    for await (const record of records) {
      seen.push(record.id)
      if (record.id === 'b') stop.abort()
    }
    return seen
  }

  it('tries again after an opening that timed out, as after one that found no server', async () => {
    expect(await reopening(new TablepayTimeoutError('http://127.0.0.1:4747', 30_000))).toEqual(['a', 'b'])
  })

  it('tries again after a 429, as a server at its cap of live streams answers', async () => {
    const full = new TablepayApiError(429, {code: 'rate_limited', message: 'Too many live streams'}, 0)
    expect(await reopening(full)).toEqual(['a', 'b'])
  })

  it('stops at a refusal that trying again would not change', async () => {
    const refused = new TablepayApiError(401, {code: 'unauthenticated', message: 'no such key'})
    await expect(reopening(refused)).rejects.toBe(refused)
  })
})

describe('waitAfter', () => {
  const answer = (status: number, retryAfterS?: number) =>
    new TablepayApiError(
      status,
      {code: status === 429 ? 'rate_limited' : 'storage_unavailable', message: ''},
      retryAfterS,
    )

  it("waits for a 429's or a 503's Retry-After when it is longer than the backoff, up to the longest wait", () => {
    expect(waitAfter(answer(429, 3), 500)).toBe(3000)
    expect(waitAfter(answer(503, 1), 250)).toBe(1000)
    expect(waitAfter(answer(429, 60), 500)).toBe(MAX_WAIT_MS)
  })

  it('keeps the backoff when it is longer, or when the answer has no Retry-After', () => {
    expect(waitAfter(answer(429, 1), 4000)).toBe(4000)
    expect(waitAfter(answer(500), 500)).toBe(500)
    expect(waitAfter(new TablepayConnectionError('http://127.0.0.1:9/v1', new TypeError('fetch failed')), 500)).toBe(
      500,
    )
  })

  it('gives up on an answer that trying again would not change', () => {
    expect(waitAfter(answer(401), 500)).toBeUndefined()
    expect(waitAfter(answer(404), 500)).toBeUndefined()
    expect(waitAfter(new Error('a bug'), 500)).toBeUndefined()
  })
})
