import {Errors, Flags} from '@oclif/core'
import {TablepayCommand} from '../lib/tablepay-command.js'
import {SIGNATURE_HEADER, signPayload} from '../webhooks/signature.js'
import {readRawPayload, requireSecret, webhookFlags} from '../lib/webhook-input.js'

// The limit a receiver has to answer a delivery (SPEC section 8); --post holds it to the same.
const RECEIVER_TIMEOUT_MS = 10_000

interface SignOutput {
  header: string
  url?: string
  status?: number
}

export default class Sign extends TablepayCommand {
  static override summary = 'Sign a payload as Tablepay signs webhook deliveries.'

  static override description = `Prints the ${SIGNATURE_HEADER} header value for the payload: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<payload>">. \
The payload is signed byte for byte as read.

With --post URL it also sends the payload there, as a delivery would (POST, Content-Type: application/json, the signature header, \
no redirects followed, 10 s to answer), and prints the answer's status. Any answer but a 2xx exits 1.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --secret whsec_… --payload fixtures/checks/open.json',
    {description: 'Test your receiver with a signed request', command: 'TABLEPAY_WEBHOOK_SECRET=whsec_… <%= config.bin %> <%= command.id %> -p event.json --post http://localhost:3000/webhooks'},
    {description: 'A signature made 10 minutes ago, which receivers must refuse', command: '<%= config.bin %> <%= command.id %> -p event.json --timestamp $(($(date +%s) - 600))'},
  ]

  static override flags = {
    ...webhookFlags,
    timestamp: Flags.integer({char: 't', helpValue: 'UNIX_SECONDS', summary: 'The t to sign with, in unix seconds. Default: now.', min: 0}),
    post: Flags.url({helpValue: 'URL', summary: 'Also POST the signed payload to this URL and print the answer\'s status.'}),
  }

  public async run(): Promise<SignOutput> {
    const {flags} = await this.parse(Sign)
    const secret = requireSecret(flags.secret)
    const payload = await readRawPayload(flags.payload)
    const header = signPayload(payload, secret, flags.timestamp)
    this.log(header)
    if (!flags.post) return {header}
    const answer = await post(flags.post, payload, header)
    this.log(`${flags.post} answered ${answer.status} ${answer.statusText}`.trimEnd())
    return {header, url: flags.post.href, status: answer.status}
  }
}

/** Sends a signed payload as a delivery does; anything but a 2xx is a CLI error that says why. */
async function post(url: URL, payload: Buffer, header: string): Promise<Response> {
  let answer: Response
  try {
    answer = await fetch(url, {
      method: 'POST',
      body: payload,
      headers: {'Content-Type': 'application/json', [SIGNATURE_HEADER]: header},
      // A delivery that gets a redirect has failed, so --post shows the receiver the same.
      redirect: 'manual',
      signal: AbortSignal.timeout(RECEIVER_TIMEOUT_MS),
    })
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') {
      throw new Errors.CLIError(`${url} did not answer within ${RECEIVER_TIMEOUT_MS / 1000} s.`, {
        exit: 1,
        code: 'receiver_timeout',
        suggestions: ['Answer a delivery with a 2xx first, then do the slow work.'],
      })
    }
    // fetch wraps socket errors in TypeError('fetch failed'); the errno code is on its cause.
    const cause = (error as {cause?: {code?: string; message?: string}}).cause
    throw new Errors.CLIError(`Could not reach ${url} (${cause?.code ?? cause?.message ?? (error as Error).message}).`, {
      exit: 1,
      code: 'connection_failed',
      suggestions: ['Start the receiver, or check the --post URL.'],
    })
  }
  if (answer.ok) return answer
  const redirect = answer.headers.get('location')
  const body = (await answer.text()).slice(0, 300)
  throw new Errors.CLIError(`${url} answered ${answer.status} ${answer.statusText}${redirect ? ` (redirect to ${redirect})` : ''}${body ? `: ${body}` : ''}`, {
    exit: 1,
    code: 'receiver_rejected',
    suggestions: [redirect ? 'Deliveries do not follow redirects: post to the final URL.' : 'A receiver accepts a delivery with a 2xx status; see its logs for why it refused.'],
  })
}
