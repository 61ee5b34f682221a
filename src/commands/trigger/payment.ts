import {Flags} from '@oclif/core'
import type {Payment} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {checkFlag} from '../../cli/check-ref.js'
import {guestFlags} from '../../cli/flags/guest.js'
import {describePayment} from '../../cli/views/guest.js'
import {textFlag} from '../../cli/flags/filter.js'
import {MAX_CENTS} from '../../domain/money.js'

export default class TriggerPayment extends ApiCommand<typeof TriggerPayment> {
  static override summary = 'Pay a check, as a guest at the table would.'

  static override description = `Pays --amount (in cents, like the API), or without it everything still due. \
The amount may not exceed what is due (422 amount_exceeds_balance); the tip is extra and never counts toward the total. \
The check must be open.

Emits payment.succeeded and check.updated, and check.fully_paid when the payment covers the rest of the total. \
--decline simulates a declined card: 402 payment_declined, nothing changes.`

  static override examples = [
    {description: 'Pay everything due', command: '<%= config.bin %> <%= command.id %> --check t12'},
    {
      description: '12.00 plus a 1.50 tip, for a claim',
      command: '<%= config.bin %> <%= command.id %> -c t12 --amount 1200 --tip 150 --claim clm_8d2k4m1x0q9s7a3z5b6c',
    },
    {description: 'A declined card', command: '<%= config.bin %> <%= command.id %> -c t12 --amount 500 --decline'},
    {
      description: 'Safe to retry in a script',
      command: '<%= config.bin %> <%= command.id %> -c t12 --amount 500 --idempotency-key order-42-pay-1',
    },
  ]

  static override fieldFlags = {amount_cents: '--amount', tip_cents: '--tip', claim_id: '--claim'}

  static override flags = {
    check: checkFlag({required: true}),
    // at most what the API takes: a larger number is a wrong command line, never rounded past 2^53 and sent
    amount: Flags.integer({
      char: 'a',
      min: 1,
      max: MAX_CENTS,
      helpValue: 'CENTS',
      summary: 'Amount toward the check, in cents. Default: all that is due (then --idempotency-key is refused).',
    }),
    tip: Flags.integer({min: 0, max: MAX_CENTS, helpValue: 'CENTS', summary: 'Tip on top, in cents.'}),
    claim: textFlag({summary: 'Id of a claim of this check (clm_…) that the payment is for.'}),
    decline: Flags.boolean({summary: 'Simulate a declined card (sends "simulate": "decline").'}),
    ...guestFlags,
  }

  public async run(): Promise<Payment> {
    const {amount, tip, claim, decline} = this.flags
    if (amount === undefined && this.flags['idempotency-key'] !== undefined) {
      // "all that is due" is read before sending and changes once paid, so a retry would be another request
      this.error(
        '--idempotency-key needs --amount: without it the amount is what is due now, which a retry would not repeat.',
        {exit: 2, code: 'invalid_usage'},
      )
    }
    // without --amount the check is read for what is due, and that read gives its id too
    const due = amount === undefined ? await this.flags.check.fetch(this.client) : undefined
    const checkId = due?.id ?? (await this.flags.check.id(this.client))
    const amountCents = amount ?? due!.amount_due_cents
    if (amountCents === 0) {
      this.error(`Nothing is due on check ${checkId}: it is paid.`, {
        exit: 1,
        code: 'nothing_due',
        suggestions: ['Refund a payment first with `tablepay trigger refund`.'],
      })
    }
    const payment = await this.client.pay(
      checkId,
      {amount_cents: amountCents, tip_cents: tip, claim_id: claim, ...(decline ? {simulate: 'decline' as const} : {})},
      {idempotencyKey: this.flags['idempotency-key']},
    )
    this.log(describePayment(payment))
    return payment
  }
}
