import type {H3Event} from 'h3'
import {expect, it} from 'vitest'
import type {AppContext} from '../../../src/server/context.js'
import {findCheck} from '../../../src/server/internal/owned.js'
import {checkWith} from '../../helpers/checks.js'
import {serviceForTest} from '../../service/service.js'

/** What a route's lookup reads of its request: the account its key authenticated, and the `:id` of its path. */
const requestFor = (accountId: string, id: string) => ({context: {accountId, params: {id}}}) as unknown as H3Event

it("a route's lookup answers 404 for a record the account lacks, and 401 once the account was deleted since its key was read", async () => {
  const {service} = await serviceForTest()
  const app = {service} as AppContext
  const scratch = await service.accounts.createScratch('acct_demo')
  const {check} = await service.checks.push(scratch.id, 't1', {
    ...checkWith([['a', 2, 500]]),
    location_id: scratch.locations[0]!.id,
  })
  expect(await findCheck(app, requestFor(scratch.id, check.id))).toMatchObject({id: check.id})
  await expect(findCheck(app, requestFor(scratch.id, 'chk_missing'))).rejects.toMatchObject({code: 'not_found'})

  // the request authenticated before the deletion ran: the check went with its account
  await service.accounts.deleteScratch('acct_demo', scratch.id)
  await expect(findCheck(app, requestFor(scratch.id, check.id))).rejects.toMatchObject({
    code: 'unauthenticated',
    status: 401,
  })
})
