import {defineEventHandler, type Router, setResponseStatus} from 'h3'
import {ApiError} from '../../domain/errors.js'
import {FaultInput} from '../../domain/faults.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
import {readJson} from '../internal/body.js'
import {readListQuery, unknownCursor} from '../internal/list.js'

/** Faults on demand: status answers, delays, resets and lost answers (docs/api.md, "Faults and rate limits"). */
export function faultRoutes(router: Router, {service, now}: AppContext): void {
  router.post(
    '/v1/sim/faults',
    defineEventHandler(async (event) => {
      const input = await readJson(event, FaultInput)
      setResponseStatus(event, 201)
      return service.faults.add(accountOf(event), input, now())
    }),
  )

  router.get(
    '/v1/sim/faults',
    defineEventHandler(async (event) => {
      const {limit, starting_after} = readListQuery(event)
      const newest = (await service.faults.list(accountOf(event))).reverse()
      const from = starting_after === undefined ? 0 : newest.findIndex((f) => f.id === starting_after) + 1
      if (from === 0 && starting_after !== undefined) throw unknownCursor(starting_after)
      const data = newest.slice(from, from + limit)
      const has_more = newest.length > from + limit
      return {object: 'list', data, has_more, next_cursor: has_more ? data.at(-1)!.id : null}
    }),
  )

  router.delete(
    '/v1/sim/faults',
    defineEventHandler(async (event) => ({
      object: 'fault_clear',
      deleted: await service.faults.clear(accountOf(event)),
    })),
  )

  router.delete(
    '/v1/sim/faults/:id',
    defineEventHandler(async (event) => {
      const id = event.context.params?.id ?? ''
      if (!(await service.faults.remove(accountOf(event), id))) {
        throw new ApiError('not_found', `No fault ${id} in this account; a used-up fault is gone (GET /v1/sim/faults).`)
      }
      return {id, object: 'fault', deleted: true}
    }),
  )
}
