import {Flags} from '@oclif/core'
import type {Payment} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {guestFlags} from '../../cli/flags/guest.js'
import {describePayment} from '../../cli/views/guest.js'
import {textFlag} from '../../cli/flags/filter.js'
import {MAX_CENTS} from '../../domain/money.js'

export default class TriggerRefund extends ApiCommand<typeof TriggerRefund> {
  static override summary = 'Refund a payment, in full or in part.'

  static override description = `Refunds --amount (in cents), or without it everything not yet refunded, tip included. \
A refund comes off the bill part of the payment first and off the tip last; the bill part lowers the check's amount paid, \
so a paid check is partially paid again. Only an open check's payments are refunded: push a closed check open first.

Emits payment.refunded, and check.updated when the check's amount paid changes.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --payment pay_3m9x0q2k8s1d7a4z6b5c',
    {
      description: 'Refund 3.00',
      command: '<%= config.bin %> <%= command.id %> --payment pay_3m9x0q2k8s1d7a4z6b5c --amount 300',
    },
  ]

  static override fieldFlags = {amount_cents: '--amount'}

  static override flags = {
    payment: textFlag({summary: 'The payment to refund (pay_…).', required: true}),
    // at most what the API takes, as trigger payment's
    amount: Flags.integer({
      char: 'a',
      min: 1,
      max: MAX_CENTS,
      helpValue: 'CENTS',
      summary: 'Amount to refund, in cents. Default: everything not yet refunded.',
    }),
    ...guestFlags,
  }

  public async run(): Promise<Payment> {
    const {payment: id, amount} = this.flags
    const payment = await this.client.refund(id, amount === undefined ? {} : {amount_cents: amount}, {
      idempotencyKey: this.flags['idempotency-key'],
    })
    this.log(describePayment(payment))
    return payment
  }
}
