import {Flags} from '@oclif/core'
import {type SignOutput, signDelivery} from '../cli/signing/sign.js'
import {Command} from '../cli/command.js'
import {webhookFlags} from '../cli/flags/webhook.js'
import {forwardToFlag} from '../cli/flags/forward-to.js'
import {SIGNATURE_HEADER} from '../webhooks/signature.js'

// The lean entry (src/cli/lean-entry.ts) runs this command without oclif when it can: keep the logic in signDelivery.
export default class Sign extends Command {
  static override summary = 'Sign a payload as Tablepay signs webhook deliveries.'

  static override description = `Prints the ${SIGNATURE_HEADER} header value for the payload: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<payload>">. \
The payload is signed byte for byte as read; an empty one (nothing, or only whitespace) is refused, as no delivery has one.

With --forward-to URL it also sends the payload there as the first attempt of its delivery, and prints the answer's status: \
a POST with every header a delivery carries (Content-Type: application/json, User-Agent, the signature, \
X-Tablepay-Event-Id and X-Tablepay-Event-Type from the payload's id and type, X-Tablepay-Delivery-Attempt: 1), \
no redirects followed, 10 s to answer.`

  static override exitCodes = {
    1: "--forward-to's receiver answered other than 2xx, not within 10 s, or could not be reached.",
  }

  static override examples = [
    '<%= config.bin %> <%= command.id %> --secret whsec_… --payload body.json',
    {
      description: 'Test your receiver with a signed request',
      command:
        'TABLEPAY_WEBHOOK_SECRET=whsec_… <%= config.bin %> <%= command.id %> -p event.json --forward-to http://localhost:3000/webhooks',
    },
    {
      description: 'A signature made 10 minutes ago, which receivers must refuse',
      command: '<%= config.bin %> <%= command.id %> -s whsec_… -p event.json --timestamp $(($(date +%s) - 600))',
    },
  ]

  static override flags = {
    ...webhookFlags,
    timestamp: Flags.integer({
      char: 't',
      helpValue: 'UNIX_SECONDS',
      summary: 'The t to sign with, in unix seconds. Default: now.',
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
    }),
    // --post: its name before the one receiver-URL flag (docs/cli.md, "Flags and exit codes")
    'forward-to': forwardToFlag({
      aliases: ['post'],
      summary: "Also POST the signed payload to your receiver at URL, as a delivery, and print the answer's status.",
    }),
  }

  public async run(): Promise<SignOutput> {
    const {flags} = await this.parse(Sign)
    // a receiver may take up to its timeout to answer --forward-to; the spinner (ora, chalk) loads only then,
    // so that signing alone starts as fast as verify (docs/benchmarks.md)
    const showWait = async <T>(text: string, work: Promise<T>) => {
      // the request is out already: a receiver that refuses before the spinner's module has loaded
      // must not be an unhandled rejection (which ends the process with a stack); withSpinner rethrows it
      work.catch(() => {})
      return (await import('../cli/views/spinner.js')).withSpinner(text, work, {quiet: this.jsonEnabled()})
    }
    return signDelivery(flags, (text) => this.log(text), {showWait, notice: (text) => this.notice(text)})
  }
}
