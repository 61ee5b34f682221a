import {defineEventHandler, type H3Event, type Router, setResponseHeader, setResponseStatus} from 'h3'
import * as z from 'zod'
import {renderCheck} from '../../domain/check.js'
import {acceptCheckPush, acceptExternalId} from '../../domain/check-push-fast.js'
import {ApiError} from '../../domain/errors.js'
import {CheckPush, CheckStatus, ExternalCheckId} from '../../domain/schemas.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
import {parseJson, readJsonText, readParam} from '../internal/body.js'
import {checkAnswer} from '../internal/check-answer.js'
import {paginate, readListQuery} from '../internal/list.js'
import {findCheck} from '../internal/owned.js'
import {notesOf} from '../internal/traffic.js'

/** The filters of `GET /checks`, besides the list query. */
export const CheckFilters = z.object({status: CheckStatus.optional(), location_id: z.string().optional()})

export function checkRoutes(router: Router, app: AppContext): void {
  const {service, baseUrl} = app
  const externalIdOf = (event: H3Event) => readParam(event, 'external_check_id', ExternalCheckId, acceptExternalId)

  router.put(
    '/v1/checks/external/:external_check_id',
    defineEventHandler(async (event) => {
      const externalId = externalIdOf(event)
      const text = await readJsonText(event)
      const pushed = {text, parse: (text: string) => parseJson(text, CheckPush, acceptCheckPush)}
      const outcome = await service.checks.push(accountOf(event), externalId, pushed, notesOf(event))
      setResponseStatus(event, outcome.result === 'created' ? 201 : 200)
      setResponseHeader(event, 'x-tablepay-push-result', outcome.result)
      return checkAnswer(event, outcome.check, baseUrl, outcome.resource)
    }),
  )

  router.get(
    '/v1/checks',
    defineEventHandler((event) => {
      const query = readListQuery(event, CheckFilters)
      const where = {status: query.status, location_id: query.location_id}
      return paginate(service.records, 'checks', accountOf(event), query, where, (c) => renderCheck(c, baseUrl))
    }),
  )

  router.get(
    '/v1/checks/external/:external_check_id',
    defineEventHandler(async (event) => {
      const externalId = externalIdOf(event)
      const check = await service.records.checkByExternalId(accountOf(event), externalId)
      if (!check) throw new ApiError('not_found', `No check with external id ${externalId} in this account.`)
      return checkAnswer(event, check, baseUrl)
    }),
  )

  router.get(
    '/v1/checks/:id',
    defineEventHandler(async (event) => checkAnswer(event, await findCheck(app, event), baseUrl)),
  )
}
