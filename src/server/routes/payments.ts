import {renderPayment} from '../../domain/payments.js'
import {Payment, PaymentInput, RefundInput} from '../../domain/schemas.js'
import {pay, refund} from '../guest-actions.js'
import {findCheck, findOwned, listOfCheck} from '../internal/owned.js'
import type {OperationSpec} from '../operations.js'

/** Guests paying and being refunded (simulated: on the real service this happens on the table page and at the card processor). */
export const paymentOperations: OperationSpec[] = [
  {
    id: 'simulatePayment',
    summary: 'Simulate a guest paying',
    body: PaymentInput,
    response: Payment,
    status: [201],
    idempotent: true,
    errors: ['check_not_open', 'amount_exceeds_balance', 'payment_declined'],
    handler: async (event, app) => pay(app, event, await findCheck(app, event)),
  },
  {
    id: 'simulateRefund',
    summary: 'Simulate a refund of a payment',
    body: RefundInput,
    response: Payment,
    status: [200],
    idempotent: true,
    errors: ['check_not_open', 'amount_exceeds_balance'],
    handler: async (event, app) => refund(app, event, await findOwned(app, 'payments', event, 'payment')),
  },
  {
    id: 'listCheckPayments',
    summary: "The check's payments",
    response: Payment,
    list: true,
    handler: (event, app) => listOfCheck(app, event, 'payments', renderPayment),
  },
  {
    id: 'getPayment',
    summary: 'A payment, with its refunds',
    response: Payment,
    handler: async (event, app) => renderPayment(await findOwned(app, 'payments', event, 'payment')),
  },
]
