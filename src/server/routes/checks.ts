import {type H3Event, setResponseHeader, setResponseStatus} from 'h3'
import * as z from 'zod'
import {renderCheck} from '../../domain/check.js'
import {acceptCheckPush, acceptExternalId} from '../../domain/check-push-fast.js'
import {PUSH_RESULTS} from '../../domain/push.js'
import {Check, CheckPush, CheckStatus, ExternalCheckId} from '../../domain/schemas.js'
import {accountOf} from '../internal/auth.js'
import {parseJson, readJsonText, readParam} from '../internal/body.js'
import {checkAnswer} from '../internal/check-answer.js'
import {paginate, readListQuery} from '../internal/list.js'
import {findCheck, found} from '../internal/owned.js'
import {notesOf} from '../internal/traffic.js'
import type {OperationSpec} from '../operations.js'

/** The filters of `GET /checks`, besides the list query. */
// an empty filter (`?location_id=`, a variable unset) is refused as `starting_after=` is, not read as matching nothing
export const CheckFilters = z.object({status: CheckStatus.optional(), location_id: z.string().min(1).optional()})

const externalIdOf = (event: H3Event) => readParam(event, 'external_check_id', ExternalCheckId, acceptExternalId)

/** The push of a check by its POS id, and the reads of what was pushed. */
export const checkOperations: OperationSpec[] = [
  {
    id: 'pushCheck',
    summary: 'Push the complete current state of a check',
    body: CheckPush,
    response: Check,
    status: [201, 200],
    errors: ['conflict_with_paid_items', 'version_conflict'],
    headers: {
      'X-Tablepay-Push-Result': {description: 'How the push changed the stored check', schema: z.enum(PUSH_RESULTS)},
    },
    async handler(event, {service, baseUrl}) {
      const externalId = externalIdOf(event)
      const text = await readJsonText(event)
      const pushed = {text, parse: (text: string) => parseJson(text, CheckPush, acceptCheckPush)}
      const outcome = await service.checks.push(accountOf(event), externalId, pushed, notesOf(event))
      setResponseStatus(event, outcome.result === 'created' ? 201 : 200)
      setResponseHeader(event, 'x-tablepay-push-result', outcome.result)
      return checkAnswer(event, outcome.check, baseUrl, outcome.resource)
    },
  },
  {
    id: 'listChecks',
    summary: 'Checks, newest first',
    response: Check,
    list: true,
    filters: CheckFilters,
    handler(event, {service, baseUrl}) {
      const query = readListQuery(event, CheckFilters)
      const where = {status: query.status, location_id: query.location_id}
      return paginate(service.records, 'checks', accountOf(event), query, where, (c) => renderCheck(c, baseUrl))
    },
  },
  {
    id: 'getCheck',
    summary: 'A check',
    response: Check,
    handler: async (event, app) => checkAnswer(event, await findCheck(app, event), app.baseUrl),
  },
  {
    id: 'getCheckByExternalId',
    summary: 'A check, by the POS id it was pushed under',
    response: Check,
    async handler(event, {service, baseUrl}) {
      const externalId = externalIdOf(event)
      const check = await service.records.checkByExternalId(accountOf(event), externalId)
      return checkAnswer(event, await found(service, event, check, 'check with external id', externalId), baseUrl)
    },
  },
]
