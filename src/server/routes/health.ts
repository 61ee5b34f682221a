import * as z from 'zod'
import type {OperationSpec} from '../operations.js'

/** Readiness, public: CI waits for it before its first request. */
export const healthOperations: OperationSpec[] = [
  {
    id: 'getHealth',
    summary: 'Readiness: answers once the server is up',
    response: z.object({status: z.literal('ok')}),
    handler: () => ({status: 'ok'}),
  },
]
