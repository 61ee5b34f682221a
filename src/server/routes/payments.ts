import {defineEventHandler, type Router} from 'h3'
import {renderPayment} from '../../domain/payments.js'
import type {AppContext} from '../context.js'
import {pay, refund} from '../guest-actions.js'
import {findOwned} from '../internal/owned.js'
import {findCheck, listOfCheck} from '../internal/owned.js'

/** Guests paying and being refunded (simulated: on the real service this happens on the table page and at the card processor). */
export function paymentRoutes(router: Router, app: AppContext): void {
  router.post(
    '/v1/sim/checks/:id/payments',
    defineEventHandler(async (event) => pay(app, event, await findCheck(app, event))),
  )

  router.post(
    '/v1/sim/payments/:id/refund',
    defineEventHandler(async (event) => refund(app, event, await findOwned(app, 'payments', event, 'payment'))),
  )

  router.get(
    '/v1/checks/:id/payments',
    defineEventHandler((event) => listOfCheck(app, event, 'payments', renderPayment)),
  )

  router.get(
    '/v1/payments/:id',
    defineEventHandler(async (event) => renderPayment(await findOwned(app, 'payments', event, 'payment'))),
  )
}
