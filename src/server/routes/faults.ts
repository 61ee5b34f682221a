import {setResponseStatus} from 'h3'
import {ApiError} from '../../domain/errors.js'
import {Fault, FaultInput} from '../../domain/faults.js'
import {Deleted} from '../../domain/schemas.js'
import {accountOf} from '../internal/auth.js'
import {readJson} from '../internal/body.js'
import {pageOf, readListQuery} from '../internal/list.js'
import type {OperationSpec} from '../operations.js'
import {FaultsCleared} from '../schemas.js'

/** Faults on demand: status answers, delays, resets and lost answers (docs/api.md, "Faults and rate limits"). */
export const faultOperations: OperationSpec[] = [
  {
    id: 'createFault',
    summary: 'Make the next matching requests fail, slow down or lose their answer',
    body: FaultInput,
    response: Fault,
    status: [201],
    errors: ['limit_reached'],
    async handler(event, {service, now}) {
      const input = await readJson(event, FaultInput)
      setResponseStatus(event, 201)
      return service.faults.add(accountOf(event), input, now())
    },
  },
  {
    id: 'listFaults',
    summary: 'The faults still to strike, newest first',
    response: Fault,
    list: true,
    async handler(event, {service}) {
      const newest = (await service.faults.list(accountOf(event))).reverse()
      return pageOf(newest, readListQuery(event), (fault) => fault.id)
    },
  },
  {
    id: 'clearFaults',
    summary: 'Remove every fault of the account',
    response: FaultsCleared,
    handler: async (event, {service}) => ({
      object: 'fault_clear',
      deleted: await service.faults.clear(accountOf(event)),
    }),
  },
  {
    id: 'deleteFault',
    summary: 'Remove one fault',
    response: Deleted,
    async handler(event, {service}) {
      const id = event.context.params?.id ?? ''
      if (!(await service.faults.remove(accountOf(event), id))) {
        throw new ApiError('not_found', `No fault ${id} in this account; a used-up fault is gone (GET /v1/sim/faults).`)
      }
      return {id, object: 'fault', deleted: true}
    },
  },
]
