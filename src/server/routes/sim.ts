import {keyHint} from '../../domain/request-log.js'
import {KeyInfo} from '../../domain/schemas.js'
import {accountOf, apiKeyOf} from '../internal/auth.js'
import type {OperationSpec} from '../operations.js'
import {Reset} from '../schemas.js'

/** Simulator controls that the real service does not have. */
export const simOperations: OperationSpec[] = [
  // the dashboard asks what its key may do instead of trying a write
  {
    id: 'getKey',
    summary: "The caller's API key: its account and scopes",
    response: KeyInfo,
    handler(event): KeyInfo {
      const {key, scopes, account_id} = apiKeyOf(event)
      return {object: 'api_key', account_id, scopes, key_hint: keyHint(key)}
    },
  },
  {
    id: 'resetAccount',
    summary: "Delete the account's checks and what hangs off them; keys, locations and endpoints stay",
    response: Reset,
    async handler(event, {service}) {
      const deleted = await service.sim.reset(accountOf(event))
      return {object: 'reset', deleted}
    },
  },
]
