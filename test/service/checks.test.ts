import {describe, expect, it} from 'vitest'
import type {CheckPush} from '../../src/domain/schemas.js'
import type {PushNotes} from '../../src/service/request-log.js'
import {checkWith} from '../helpers/checks.js'
import {collectionsOf, serviceForTest} from './service.js'

describe('service.checks.push', () => {
  it('writes the check, its events and their deliveries in one unit, and tells the delivery queue', async () => {
    const {service, queued} = await serviceForTest()
    const endpoint = await service.endpoints.create('acct_demo', {
      url: 'http://127.0.0.1:9/hooks',
      event_types: ['check.created'],
    })
    queued.length = 0
    const outcome = await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
    expect(outcome.result).toBe('created')
    expect(queued).toHaveLength(1)
    expect(collectionsOf(queued[0]!)).toEqual(['checks', 'events', 'deliveries'])
    const [delivery] = await service.records.allOf('deliveries', 'acct_demo')
    expect(delivery).toMatchObject({endpoint_id: endpoint.id, event_type: 'check.created', status: 'pending'})
    expect((await service.records.checkByExternalId('acct_demo', 't1'))?.id).toBe(outcome.check.id)
  })

  it('an unchanged push writes nothing', async () => {
    const {service, queued} = await serviceForTest()
    const body = checkWith([['a', 1, 500]], {version: 1})
    await service.checks.push('acct_demo', 't1', body)
    const events = (await service.records.allOf('events', 'acct_demo')).length
    queued.length = 0
    const again = await service.checks.push('acct_demo', 't1', body)
    expect([again.result, queued, (await service.records.allOf('events', 'acct_demo')).length]).toEqual([
      'unchanged',
      [],
      events,
    ])
  })

  it("a check of one account is not found by another account's external id", async () => {
    const {service} = await serviceForTest()
    await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
    expect(await service.records.checkByExternalId('acct_other', 't1')).toBeUndefined()
  })

  describe('a push given as text', () => {
    /** A push of `body` as the server hands it over, counting how often it is parsed. */
    const asText = (body: CheckPush) => {
      const pushed = {
        text: JSON.stringify(body),
        parses: 0,
        parse: (text: string) => (pushed.parses++, JSON.parse(text)),
      }
      return pushed
    }

    it('the same text again after a replay is decided unchanged without being parsed (on PostgreSQL, by an instance alone)', async () => {
      const {service, queued} = await serviceForTest()
      const body = checkWith([['a', 1, 500]], {version: 1})
      const created = await service.checks.push('acct_demo', 't1', asText(body))
      const replay = asText(body)
      const first = await service.checks.push('acct_demo', 't1', replay)
      queued.length = 0
      const notes: PushNotes = {check_id: null, push_result: null}
      const second = await service.checks.push('acct_demo', 't1', replay, notes)
      expect([first.result, second.result, second.check]).toEqual(['unchanged', 'unchanged', created.check])
      expect(queued).toEqual([])
      expect(notes).toEqual({
        check_id: created.check.id,
        push_result: 'unchanged',
        previous: created.check,
        next: created.check,
        // the request log keeps the text kept for the replay (service/push-replays.ts)
        request_text: replay.text,
      })
      // an instance alone on its database keeps the check it read (src/postgres/check-cache.ts)
      expect(replay.parses).toBe(1)
    })

    it('a replay after the check changed in another way is parsed and decided again', async () => {
      const {service} = await serviceForTest()
      const body = checkWith([['a', 1, 500]], {version: 1})
      await service.checks.push('acct_demo', 't1', asText(body))
      const replay = asText(body)
      await service.checks.push('acct_demo', 't1', replay)
      await service.checks.push('acct_demo', 't1', checkWith([['a', 2, 500]], {version: 2}))
      const stale = await service.checks.push('acct_demo', 't1', replay)
      expect([stale.result, stale.check.version, replay.parses]).toEqual(['stale', 2, 2])
    })

    it('other text is parsed, and its errors refuse the push', async () => {
      const {service} = await serviceForTest()
      const body = checkWith([['a', 1, 500]], {version: 1})
      await service.checks.push('acct_demo', 't1', asText(body))
      await service.checks.push('acct_demo', 't1', asText(body))
      const conflicting = asText(checkWith([['a', 3, 500]], {version: 1}))
      await expect(service.checks.push('acct_demo', 't1', conflicting)).rejects.toMatchObject({
        code: 'version_conflict',
      })
      expect(conflicting.parses).toBe(1)
    })
  })
})
