import {Flags} from '@oclif/core'
import {plural} from '../../cli/views/format.js'
import {type CaseResult, runReceiverSuite, SKEW_SECONDS} from '../../cli/receiver-check/suite.js'
import {withSpinner} from '../../cli/views/spinner.js'
import {style} from '../../cli/views/style.js'
import {renderTable} from '../../cli/views/table.js'
import {Command} from '../../cli/command.js'
import {webhookFlags} from '../../cli/flags/webhook.js'
import {forwardToFlag, MISSING_FORWARD_TO} from '../../cli/flags/forward-to.js'
import {requireSecret} from '../../cli/signing/input.js'
import {receiverHint} from '../../shared/network-reason.js'

interface ReceiverReport {
  url: string
  passed: boolean
  cases: CaseResult[]
}

export default class ReceiverCheck extends Command {
  static override summary = 'Run a conformance suite against your webhook receiver.'

  static override description = `Sends your receiver signed check events, one case after another, with the headers real deliveries carry, and judges each answer. \
It must accept (2xx within 10 s): a valid delivery, the same valid delivery in other JSON formatting (so it verifies the raw body), \
two v1 signatures with its own second (as during a secret rotation), a duplicate of an event id, an older state after a newer one, \
and an older check.updated after a newer one. It must refuse (any non-2xx answer): a body changed after signing, \
another secret, no signature header, a malformed one, and a signature made ${SKEW_SECONDS} s in the past or in the future. \
A receiver that gives no answer to the first case is reported unreachable, without the other cases.

Only answers are observable: how the receiver compares signatures (in constant time or not) and what it stores cannot be checked from outside. \
No tablepay server is needed.

--forward-to names your receiver, as in \`listen\` and \`sign\`; --url, in every other command the tablepay server, is refused here.`

  static override exitCodes = {0: 'Every case passed.', 1: 'A case failed, or the receiver could not be reached.'}

  static override examples = [
    '<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/webhooks --secret whsec_…',
    {
      description: 'Secret from the environment, a report for CI',
      command:
        'TABLEPAY_WEBHOOK_SECRET=whsec_… <%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/webhooks --json',
    },
  ]

  static override flags = {
    'forward-to': forwardToFlag({summary: "Your receiver's URL, as you would register it."}),
    secret: webhookFlags.secret,
    // its name before; --url is the tablepay server everywhere else, so it is refused rather than read as the receiver
    url: Flags.string({
      hidden: true,
      async parse(text) {
        const why = '--url names the tablepay server in other commands'
        throw new Error(`receiver check takes your receiver's URL as --forward-to ${text} (${why}).`)
      },
    }),
  }

  public async run(): Promise<ReceiverReport> {
    const {flags} = await this.parse(ReceiverCheck)
    if (flags['forward-to'] === undefined) this.error(...MISSING_FORWARD_TO)
    // as the report has always shown it: WHATWG's form (a bare origin gets its slash)
    const url = new URL(flags['forward-to']).href
    const secret = await requireSecret(flags.secret)
    const cases = await withSpinner('Sending the cases', runReceiverSuite(url, secret), {
      quiet: this.jsonEnabled(),
    })
    if (cases.every((c) => c.status_code === null)) {
      const reason = cases[0]!.error!
      this.error(`No receiver answered at ${url} (${reason}).`, {
        exit: 1,
        code: 'receiver_unreachable',
        suggestions: [`${receiverHint(reason) ?? 'Start your receiver.'} Then run this again.`],
      })
    }
    this.log(
      renderTable(cases, [
        {
          header: 'RESULT',
          value: (c) => (c.passed ? 'pass' : 'FAIL'),
          color: (text, c) => (c.passed ? style.green(text) : style.red(text)),
        },
        {header: 'CASE', value: (c) => c.title},
        {header: 'EXPECTED', value: (c) => c.expected},
        {header: 'REASON', value: (c) => c.reason},
      ]),
    )
    const report = {url, passed: cases.every((c) => c.passed), cases}
    const failed = cases.filter((c) => !c.passed)
    if (failed.length > 0) {
      this.fail(
        report,
        `${plural(failed.length, 'case')} of ${cases.length} failed: ${failed.map((c) => c.id).join(', ')}.`,
        {
          code: 'receiver_nonconformant',
          suggestions: ['examples/receivers/node-http.mjs is a receiver that passes every case.'],
        },
      )
    }
    this.log(style.green(`All ${cases.length} cases passed.`))
    return report
  }
}
