import {setResponseStatus} from 'h3'
import {Deleted, ScratchAccount} from '../../domain/schemas.js'
import {accountOf} from '../internal/auth.js'
import type {OperationSpec} from '../operations.js'

/**
 * Scratch accounts, a simulator control: there is no account API, but a tool
 * that must run something in isolation (`checks replay`) needs fresh
 * accounts that resolve the same locations. Only the account that made one
 * may delete it.
 */
export const accountOperations: OperationSpec[] = [
  {
    id: 'createScratchAccount',
    summary: "Create an empty account with copies of the caller's locations and one write key",
    response: ScratchAccount,
    status: [201],
    async handler(event, {service}): Promise<ScratchAccount> {
      const scratch = await service.accounts.createScratch(accountOf(event))
      setResponseStatus(event, 201)
      return scratch
    },
  },
  {
    id: 'deleteScratchAccount',
    summary: 'Delete a scratch account this account made, with everything in it',
    response: Deleted,
    async handler(event, {service}) {
      const id = event.context.params?.id ?? ''
      await service.accounts.deleteScratch(accountOf(event), id)
      return {id, object: 'account', deleted: true}
    },
  },
]
