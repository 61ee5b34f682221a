import {Errors, Flags} from '@oclif/core'
import {IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_RULE} from '../../domain/constants.js'
import {quoted} from '../../shared/server-url.js'
import {nonEmpty} from './filter.js'

/** Flags every `trigger` command shares. */
export const guestFlags = {
  'idempotency-key': Flags.string({
    summary:
      'Sent as Idempotency-Key: running the command again with the same key and input acts once and prints the same answer.',
    // refused here as the server would refuse it: a wrong command line (exit 2), before the check is read
    parse: async (text) => {
      if (!IDEMPOTENCY_KEY.test(nonEmpty(text))) throw new Error(`${quoted(text)} ${IDEMPOTENCY_KEY_RULE}`)
      return text
    },
  }),
}

/** One `--item`: `EXTERNAL_ID` (one unit) or `EXTERNAL_ID:QUANTITY`. */
export const itemFlag = Flags.custom<{external_id: string; quantity: number}>({
  char: 'i',
  helpValue: 'EXTERNAL_ID[:QUANTITY]',
  multiple: true,
  required: true,
  summary:
    'An item to claim, by its external id, with the quantity after a colon (default 1). Repeat for several items.',
  async parse(input) {
    const at = input.lastIndexOf(':')
    const external_id = at === -1 ? input : input.slice(0, at)
    const digits = at === -1 ? '1' : input.slice(at + 1)
    // digits only: Number() would read 0x2, 1e1 and " 2" as quantities nobody typed
    const quantity = /^\d+$/.test(digits) ? Number(digits) : 0
    if (external_id === '' || quantity <= 0) {
      throw new Errors.CLIError(
        // oclif names the flag before it: `--item: …`
        `${input} is not EXTERNAL_ID or EXTERNAL_ID:QUANTITY with a whole quantity above 0, such as steak:2.`,
      )
    }
    return {external_id, quantity}
  },
})
