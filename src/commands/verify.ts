import {Flags} from '@oclif/core'
import {TablepayCommand} from '../lib/tablepay-command.js'
import {readRawPayload, requireSecret, webhookFlags} from '../lib/webhook-input.js'
import {DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, type SignatureFailureReason, type VerifyResult, verifySignature} from '../webhooks/signature.js'

// What to try next for each reason; the verifier's message says what went wrong.
const NEXT_STEP: Record<SignatureFailureReason, string> = {
  malformed_header: `Pass only the header's value, without "${SIGNATURE_HEADER}:", e.g. --header 't=1700000000,v1=5257a8…'.`,
  no_signature: `Copy the ${SIGNATURE_HEADER} header of the request into --header.`,
  signature_mismatch: 'Use the secret of the endpoint that received the delivery, and the body saved byte for byte as received (not pretty-printed, no added newline).',
  timestamp_outside_tolerance: 'Check both machines\' clocks; to check a delivery captured earlier, pass a larger --tolerance.',
}

export default class Verify extends TablepayCommand {
  static override summary = 'Check a webhook delivery\'s signature.'

  static override description = `Checks that the ${SIGNATURE_HEADER} header value signs the payload with the endpoint's secret, \
and that its timestamp is within --tolerance seconds of now, in the past or the future. \
The payload must be the body exactly as received: a re-serialized or pretty-printed body no longer matches.

Exits 0 when the signature is valid. Otherwise exits 1 with one reason code: \
malformed_header, no_signature, signature_mismatch or timestamp_outside_tolerance; \
--json prints {"valid": false, "reason", "message"} and still exits 1.`

  static override examples = [
    {description: 'Check a body saved to a file', command: '<%= config.bin %> <%= command.id %> --secret whsec_… --header \'t=1700000000,v1=5257a8…\' --payload body.json'},
    {description: 'Secret from the environment, body on stdin', command: 'TABLEPAY_WEBHOOK_SECRET=whsec_… <%= config.bin %> <%= command.id %> -H "$SIGNATURE" < body.json'},
    {description: 'A delivery captured an hour ago', command: '<%= config.bin %> <%= command.id %> -H "$SIGNATURE" -p body.json --tolerance 3600'},
  ]

  static override flags = {
    ...webhookFlags,
    header: Flags.string({char: 'H', helpValue: 'SIGNATURE', summary: `The ${SIGNATURE_HEADER} header value: t=<unix seconds>,v1=<hex>.`}),
    tolerance: Flags.integer({helpValue: 'SECONDS', summary: 'Seconds the signature\'s timestamp may differ from now, either way.', default: DEFAULT_TOLERANCE_SECONDS, min: 0}),
  }

  // Set when the signature is refused, so --json prints the verdict instead of the generic error body.
  #refusal?: Extract<VerifyResult, {valid: false}>

  public async run(): Promise<VerifyResult> {
    const {flags} = await this.parse(Verify)
    const secret = requireSecret(flags.secret)
    const payload = await readRawPayload(flags.payload)
    const result = verifySignature(payload, flags.header, secret, {tolerance: flags.tolerance})
    if (!result.valid) {
      this.#refusal = result
      const empty = payload.length === 0 ? ['The payload was empty: pass --payload FILE, or pipe the body on stdin.'] : []
      this.error(result.message, {exit: 1, code: result.reason, suggestions: [...empty, NEXT_STEP[result.reason]]})
    }
    const age = Math.floor(Date.now() / 1000) - result.timestamp
    this.log(`Valid signature, made ${new Date(result.timestamp * 1000).toISOString()} (${age >= 0 ? `${age} s ago` : `${-age} s from now`}).`)
    return result
  }

  protected override toErrorJson(error: unknown): unknown {
    return this.#refusal ?? super.toErrorJson(error)
  }
}
