import {renderClaim} from '../../domain/claims.js'
import {Claim, ClaimInput} from '../../domain/schemas.js'
import {claim} from '../guest-actions.js'
import {findCheck, findOwned, listOfCheck} from '../internal/owned.js'
import type {OperationSpec} from '../operations.js'

/** Guests claiming items (simulated: on the real service this happens on the table page). */
export const claimOperations: OperationSpec[] = [
  {
    id: 'simulateClaim',
    summary: 'Simulate a guest claiming items',
    body: ClaimInput,
    response: Claim,
    status: [201],
    idempotent: true,
    errors: ['check_not_open', 'item_unavailable'],
    handler: async (event, app) => claim(app, event, await findCheck(app, event)),
  },
  {
    id: 'listCheckClaims',
    summary: "The check's claims",
    response: Claim,
    list: true,
    handler: (event, app) => listOfCheck(app, event, 'claims', renderClaim),
  },
  {
    id: 'getClaim',
    summary: 'A claim',
    response: Claim,
    handler: async (event, app) => renderClaim(await findOwned(app, 'claims', event, 'claim')),
  },
]
