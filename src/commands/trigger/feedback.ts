import {Flags} from '@oclif/core'
import type {Feedback} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {checkFlag} from '../../cli/check-ref.js'
import {guestFlags} from '../../cli/flags/guest.js'
import {describeFeedback} from '../../cli/views/guest.js'

export default class TriggerFeedback extends ApiCommand<typeof TriggerFeedback> {
  static override summary = 'Leave feedback on a check, as a guest after the meal would.'

  static override description = `A rating from 1 to 5 and an optional comment. Only while the check is open (check_not_open otherwise), as every guest action. \
Emits feedback.received.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --check t12 --rating 5',
    {
      description: 'With a comment',
      command: '<%= config.bin %> <%= command.id %> -c t12 -r 2 --comment "The steak was cold."',
    },
  ]

  static override flags = {
    check: checkFlag({required: true}),
    rating: Flags.integer({char: 'r', min: 1, max: 5, summary: 'From 1 (bad) to 5 (excellent).', required: true}),
    comment: Flags.string({char: 'm', summary: 'What the guest wrote, at most 2,000 characters.'}),
    ...guestFlags,
  }

  public async run(): Promise<Feedback> {
    const {rating, comment} = this.flags
    const checkId = await this.flags.check.id(this.client)
    const feedback = await this.client.feedback(
      checkId,
      {rating, comment},
      {idempotencyKey: this.flags['idempotency-key']},
    )
    this.log(describeFeedback(feedback))
    return feedback
  }
}
