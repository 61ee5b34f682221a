import {expect, it} from 'vitest'
import {newAttempts} from '../../src/cli/deliveries/attempt-feed.js'
import type {StreamMessage} from '../../src/client/client.js'

/** A delivery message as the stream sends it after attempt `n`, made at `at`: the fields the feed reads. */
const afterAttempt = (n: number, at: string) =>
  ({
    type: 'delivery',
    data: {
      id: 'dlv_1',
      endpoint_id: 'we_1',
      attempts: Array.from({length: n}, (_, i) => ({
        attempt: i + 1,
        at: i + 1 === n ? at : '2026-01-01T00:00:00.000Z',
      })),
      updated_at: at,
    },
  }) as unknown as StreamMessage

async function* messages(list: StreamMessage[]) {
  yield* list
}

it('yields each attempt once, though a stream announces the same state twice, as instances on one database may', async () => {
  const first = afterAttempt(1, '2026-01-01T00:00:01.000Z')
  const second = afterAttempt(2, '2026-01-01T00:01:01.000Z')
  const seen: string[] = []
  for await (const {delivery, attempt} of newAttempts(messages([first, first, second, first, second])))
    seen.push(`${delivery.id}#${attempt.attempt}`)
  expect(seen).toEqual(['dlv_1#1', 'dlv_1#2'])
})

it("yields an attempt numbered as one it yielded before a snapshot's restore, which put the delivery back", async () => {
  const reset = {type: 'reset', data: {object: 'reset', account_id: 'acct_1'}} as StreamMessage
  let resets = 0
  const seen: string[] = []
  const restored = [afterAttempt(1, '2026-01-01T00:00:01.000Z'), reset, afterAttempt(1, '2026-01-01T00:05:00.000Z')]
  for await (const {attempt} of newAttempts(messages(restored), {onReset: async () => resets++})) seen.push(attempt.at)
  expect([seen, resets]).toEqual([['2026-01-01T00:00:01.000Z', '2026-01-01T00:05:00.000Z'], 1])
})
