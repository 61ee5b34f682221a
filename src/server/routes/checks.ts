import {defineEventHandler, type H3Event, type Router, setResponseHeader, setResponseStatus} from 'h3'
import {z} from 'zod'
import {renderCheck} from '../../domain/check.js'
import {ApiError} from '../../domain/errors.js'
import {applyPush} from '../../domain/push.js'
import type {CheckRecord} from '../../domain/records.js'
import {CheckPush, CheckStatus, ExternalCheckId} from '../../domain/schemas.js'
import {externalKey, put} from '../../store/store.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
import {readJson, readParam} from '../internal/body.js'
import {checkAnswer} from '../internal/check-answer.js'
import {paginate, readListQuery} from '../internal/list.js'
import {findCheck} from '../internal/owned.js'

/** The filters of `GET /checks`, besides the list query. */
export const CheckFilters = z.object({status: CheckStatus.optional(), location_id: z.string().optional()})

export function checkRoutes(router: Router, app: AppContext): void {
  const {store, baseUrl} = app
  const {checks} = store.tables
  const externalIdOf = (event: H3Event) => readParam(event, 'external_check_id', ExternalCheckId)
  const byExternalId = (accountId: string, externalId: string) => checks.getByAlternate(externalKey(accountId, externalId))

  router.put(
    '/v1/checks/external/:external_check_id',
    defineEventHandler(async (event) => {
      const externalId = externalIdOf(event)
      const body = await readJson(event, CheckPush)
      const accountId = accountOf(event)
      const existing = byExternalId(accountId, externalId)
      const locations = store.tables.locations
      const outcome = applyPush({
        accountId,
        externalId,
        body,
        locations: locations.idsOf(accountId).map((id) => locations.get(id)!),
        existing,
        now: app.now(),
        baseUrl,
      })
      const changed = outcome.check !== existing
      await store.commit([...(changed ? [put('checks', outcome.check.id, outcome.check)] : []), ...app.outbox(outcome.events)])
      setResponseStatus(event, outcome.result === 'created' ? 201 : 200)
      setResponseHeader(event, 'x-tablepay-push-result', outcome.result)
      return checkAnswer(event, outcome.check, baseUrl, outcome.resource)
    }),
  )

  router.get(
    '/v1/checks',
    defineEventHandler((event) => {
      const query = readListQuery(event, CheckFilters)
      const keep = (c: CheckRecord) =>
        (query.status === undefined || c.status === query.status) && (query.location_id === undefined || c.location_id === query.location_id)
      return paginate(checks.idsOf(accountOf(event)), (id) => checks.get(id), query, keep, (c) => renderCheck(c, baseUrl))
    }),
  )

  router.get(
    '/v1/checks/external/:external_check_id',
    defineEventHandler((event) => {
      const externalId = externalIdOf(event)
      const check = byExternalId(accountOf(event), externalId)
      if (!check) throw new ApiError('not_found', `No check with external id ${externalId} in this account.`)
      return checkAnswer(event, check, baseUrl)
    }),
  )

  router.get(
    '/v1/checks/:id',
    defineEventHandler((event) => checkAnswer(event, findCheck(app, event), baseUrl)),
  )
}
