import {Flags} from '@oclif/core'
import {Command} from '../cli/command.js'
import {secondsUpTo} from '../cli/flags/duration.js'
import {formatDuration} from '../domain/duration.js'
import {verifyDelivery} from '../cli/signing/verify.js'
import {webhookFlags} from '../cli/flags/webhook.js'
import {
  DEFAULT_TOLERANCE_SECONDS,
  MAX_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  type VerifyResult,
} from '../webhooks/signature.js'

// The lean entry (src/cli/lean-entry.ts) runs this command without oclif when it can: keep the logic in verifyDelivery.
export default class Verify extends Command {
  static override summary = "Check a webhook delivery's signature."

  static override description = `Checks that the ${SIGNATURE_HEADER} header value signs the payload with the endpoint's secret, \
and that its timestamp is within --tolerance of now, in the past or the future. \
The payload must be the body exactly as received: a re-serialized or pretty-printed body no longer matches. \
--json prints {"valid": true, "timestamp"} or {"valid": false, "reason", "message"}.`

  static override exitCodes = {
    0: 'The signature is valid.',
    1: 'It is not, for one reason code: malformed_header, no_signature, signature_mismatch or timestamp_outside_tolerance.',
  }

  static override examples = [
    {
      description: 'Check a body saved to a file',
      command:
        "<%= config.bin %> <%= command.id %> --secret whsec_… --header 't=1700000000,v1=5257a8…' --payload body.json",
    },
    {
      description: 'Secret from the environment, body on stdin',
      command: 'TABLEPAY_WEBHOOK_SECRET=whsec_… <%= config.bin %> <%= command.id %> -H "$SIGNATURE" < body.json',
    },
    {
      description: 'A delivery captured an hour ago',
      command: '<%= config.bin %> <%= command.id %> -s whsec_… -H "$SIGNATURE" -p body.json --tolerance 1h',
    },
  ]

  static override flags = {
    ...webhookFlags,
    header: Flags.string({
      char: 'H',
      helpValue: 'SIGNATURE',
      summary: `The ${SIGNATURE_HEADER} header value: t=<unix seconds>,v1=<hex>.`,
    }),
    // no `default`: its help would show seconds (300) where a duration is written (src/cli/flags/serve.ts, --receiver-timeout)
    tolerance: secondsUpTo(
      MAX_TOLERANCE_SECONDS,
      `${MAX_TOLERANCE_SECONDS} seconds, the most a number holds exactly`,
    )({
      summary: `How far the signature's timestamp may be from now, either way, in whole seconds, e.g. 90 or 10m (default ${formatDuration(DEFAULT_TOLERANCE_SECONDS)}).`,
    }),
  }

  public async run(): Promise<VerifyResult> {
    const {flags} = await this.parse(Verify)
    return verifyDelivery(flags, (text) => this.log(text))
  }
}
