import type {Claim} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {checkFlag} from '../../cli/check-ref.js'
import {guestFlags, itemFlag} from '../../cli/flags/guest.js'
import {describeClaim} from '../../cli/views/guest.js'

export default class TriggerClaim extends ApiCommand<typeof TriggerClaim> {
  static override summary = 'Claim items of a check, as a guest at the table would.'

  static override description = `All or nothing: if any item has fewer units left than asked, nothing is claimed (409 item_unavailable). \
The check must be open. A claimed item is then protected: a push that removes it, lowers its price or its quantity below what is claimed answers 409 conflict_with_paid_items.

Emits claim.created and check.updated.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --check t12 --item line-1002',
    {
      description: 'Several items, with quantities',
      command: '<%= config.bin %> <%= command.id %> -c chk_4f0b6k2m9q1x8s7d3a5z --item line-1002:2 --item line-1003',
    },
    {
      description: 'The claim id, for a payment',
      command: 'CLAIM=$(<%= config.bin %> <%= command.id %> -c t12 --item line-1001 --json | jq -r .id)',
    },
  ]

  static override fieldFlags = {items: '--item'}

  static override flags = {
    check: checkFlag({required: true}),
    item: itemFlag(),
    ...guestFlags,
  }

  public async run(): Promise<Claim> {
    const checkId = await this.flags.check.id(this.client)
    const claim = await this.client.claim(
      checkId,
      {items: this.flags.item},
      {idempotencyKey: this.flags['idempotency-key']},
    )
    this.log(describeClaim(claim))
    return claim
  }
}
