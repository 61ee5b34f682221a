import {setTimeout as delay} from 'node:timers/promises'
import {Flags} from '@oclif/core'
import type {WebhookEndpoint} from '../client/client.js'
import {TablepayApiError, TablepayError} from '../client/errors.js'
import {attemptCatchUp, newAttempts} from '../cli/deliveries/attempt-feed.js'
import {ApiCommand} from '../cli/api-command.js'
import {attemptJson, renderAttemptLine} from '../cli/views/delivery.js'
import {eventTypesFlag, eventTypesOf} from '../cli/flags/event-types.js'
import {FIRST_WAIT_MS, followLiveStream, waitAfter} from '../cli/reconnecting-stream.js'
import {SECOND_SIGNAL_EXIT_CODES} from '../cli/exit-codes.js'
import {abortOnSignal} from '../cli/shutdown.js'
import {style} from '../cli/views/style.js'
import {
  renderEndpointGone,
  renderListenDeleted,
  renderReconnected,
  renderRestored,
  renderStreamDropped,
} from '../cli/views/stream.js'
import {pastDuration} from '../cli/flags/duration.js'
import {parseChaosSpec} from '../cli/webhooks/chaos-spec.js'
import {resendSince} from '../cli/webhooks/resend-since.js'
import type {ChaosInput} from '../domain/schemas.js'
import {SECRET_FORMAT, SECRET_RULE} from '../domain/endpoints.js'
import {forwardToFlag, MISSING_FORWARD_TO} from '../cli/flags/forward-to.js'
import {receiverRefused} from '../cli/receiver-refused.js'

type Endpoint = WebhookEndpoint & {secret: string}

export default class Listen extends ApiCommand<typeof Listen> {
  static override summary = 'Forward webhooks to a local receiver and show each attempt.'

  static override description = `Registers a webhook endpoint for --forward-to, prints its signing secret, then prints every delivery attempt to it, \
one line each (--json: a ready line with the endpoint and secret, then one JSON line per attempt). \
Every run against the same server data and account signs with the same secret, which the server keeps for the account \
(--print-secret prints it and exits; --secret or TABLEPAY_WEBHOOK_SECRET gives another), so your receiver keeps verifying across runs. \
--since sends it again the events of that past of its types, each as a resend; --chaos duplicates and reorders its deliveries (see \`webhooks chaos\`). \
When the stream drops it reconnects (a line on stderr says so), goes on with the same endpoint, and first prints the attempts made to it meanwhile. \
When a snapshot's restore removes the endpoint (\`snapshots restore\`), it registers it again with the same secret and settings, a line on stderr saying so; \
when it is deleted otherwise (\`webhooks delete\` from another terminal, a teammate), it ends (endpoint_deleted). \
On every other exit (Ctrl+C, SIGTERM, a closed terminal's SIGHUP, an error) the endpoint is deleted, unless --keep.`

  static override exitCodes = {
    0: 'Stopped by Ctrl+C, SIGTERM or SIGHUP, the endpoint deleted; or --print-secret printed the secret.',
    1: 'The server refused a request, the endpoint was disabled (endpoint_disabled) or deleted elsewhere (endpoint_deleted), or it could not be deleted on exit (endpoint_not_removed): the message says which.',
    ...SECOND_SIGNAL_EXIT_CODES,
  }

  static override keepsPrinting = true

  static override examples = [
    '<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/webhooks',
    {
      description: 'Only payments, and keep the endpoint afterwards',
      command:
        '<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/webhooks -e payment.succeeded,payment.refunded --keep',
    },
  ]

  static override flags = {
    'forward-to': forwardToFlag({summary: 'URL of your receiver.'}),
    'event-type': eventTypesFlag(),
    keep: Flags.boolean({summary: 'Leave the endpoint registered on exit.'}),
    'print-secret': Flags.boolean({
      summary: "Print the secret it signs with and exit: the account's listen secret, unless --secret gives one.",
    }),
    secret: Flags.custom<string>({
      char: 's',
      // the variable verify, sign and receiver check read: a receiver started with it verifies what listen signs
      env: 'TABLEPAY_WEBHOOK_SECRET',
      helpValue: 'whsec_…',
      summary: "Sign with this secret instead of the account's listen secret (whsec_ and 24-100 characters).",
      // the server's rule for a secret it signs with, checked before anything is registered
      parse: async (text) => {
        if (!SECRET_FORMAT.test(text))
          throw new Error(`The secret (--secret or TABLEPAY_WEBHOOK_SECRET) ${SECRET_RULE}.`)
        return text
      },
    })(),
    since: pastDuration({
      helpValue: 'DURATION',
      summary: 'At start, send again the events of this past (2h) of its types.',
    }),
    chaos: Flags.custom<ChaosInput>({
      helpValue: 'duplicate=P,reorder=DURATION,seed=N',
      summary: 'Duplicate and reorder deliveries to the endpoint.',
      parse: async (text) => parseChaosSpec(text),
    })(),
  }

  public async run(): Promise<void> {
    if (this.flags['print-secret']) {
      const secret = await this.#secret()
      this.emit({secret}, secret)
      return
    }
    if (this.flags['forward-to'] === undefined) this.error(...MISSING_FORWARD_TO)
    const stopped = abortOnSignal()
    // ends the stream on any way out, even before its first read
    const done = new AbortController()
    const signal = AbortSignal.any([stopped, done.signal])
    let failure: unknown
    try {
      // subscribe first, so not one attempt to the new endpoint can be missed
      // after a drop, the endpoint is looked at first (a server that lost its data needs a new one), then the
      // attempts made to it meanwhile are printed; a restore may have removed it too
      const onReset = () => this.#ensureEndpoint(this.#endpoint!, renderRestored)
      const onEndpointDeleted = (id: string) => this.#endIfDeleted(id)
      const messages = await followLiveStream(
        async (opened) => newAttempts(await this.tailClient.openStream({signal: opened}), {onReset, onEndpointDeleted}),
        attemptCatchUp(
          this.tailClient,
          async () => (await this.#ensureEndpoint(this.#endpoint!, renderEndpointGone)).id,
        ),
        {
          signal,
          onDrop: (reason) => this.notice(renderStreamDropped(reason)),
          onReconnect: (count) => this.notice(renderReconnected({count, noun: 'attempt'})),
        },
      )
      // stopped while its stream opened: no endpoint to make
      if (stopped.aborted) return
      await this.#register()
      for await (const {delivery, attempt} of messages) {
        // a reconnect may have made a new one
        const {id} = this.#endpoint!
        if (delivery.endpoint_id !== id) continue
        this.emit(attemptJson(delivery, attempt), renderAttemptLine(delivery, attempt))
        if (delivery.status === 'dead') this.#endIfDisabled(await this.tailClient.getWebhookEndpoint(id))
      }
    } catch (error) {
      failure = error
    }
    done.abort()
    // every way out removes the endpoint: one left behind keeps receiving every event with a secret nobody holds
    const endpoint = this.#endpoint
    const leftBehind = endpoint && !this.flags.keep ? await this.#remove(endpoint.id) : undefined
    if (failure) {
      if (leftBehind) this.notice(leftBehind)
      throw failure
    }
    if (leftBehind) {
      const suggestions = [`Remove it once the server answers: tablepay webhooks delete ${endpoint!.id}`]
      this.error(leftBehind, {exit: 1, code: 'endpoint_not_removed', suggestions})
    }
  }

  /**
   * The endpoint it forwards to, the one made last: known from the server's answer on, so every way out removes
   * it, until it is deleted elsewhere.
   */
  #endpoint: Endpoint | undefined

  /** The secret to sign with: --secret, else the one the server keeps for every listen of this account. */
  async #secret(): Promise<string> {
    return this.flags.secret ?? (await this.client.getListenSecret()).secret
  }

  async #register(): Promise<Endpoint> {
    const {flags} = this
    const endpoint = await this.client
      .createWebhookEndpointWithSecret({
        url: flags['forward-to']!,
        event_types: eventTypesOf(flags['event-type']),
        description: 'tablepay listen',
        secret: await this.#secret(),
      })
      .catch(receiverRefused(flags['forward-to']))
    // known at once: a step below that fails still has it removed on the way out
    this.#endpoint = endpoint
    if (flags.chaos) await this.client.setWebhookChaos(endpoint.id, flags.chaos)
    if (flags.since !== undefined) {
      const since = new Date(Date.now() - flags.since * 1000).toISOString()
      const count = await resendSince(this.client, endpoint, since)
      this.notice(`Delivering again ${count} event${count === 1 ? '' : 's'} since ${since}.`)
    }
    this.emit(
      {
        status: 'ready',
        endpoint_id: endpoint.id,
        url: endpoint.url,
        event_types: endpoint.event_types,
        secret: endpoint.secret,
      },
      [
        `Forwarding ${endpoint.event_types.length} event types to ${style.bold(endpoint.url)} (endpoint ${endpoint.id})`,
        `Signing secret: ${style.bold(endpoint.secret)}`,
        style.dim(`Ctrl+C to stop${this.flags.keep ? '' : ' and remove the endpoint'}.`),
      ].join('\n'),
    )
    return endpoint
  }

  /**
   * Deliveries dead in a row disable the endpoint (SPEC 6.6): nothing more comes to it, so `listen` says so and
   * ends, whether it saw the attempt that did it or was away meanwhile.
   */
  #endIfDisabled({id, status}: Pick<Endpoint, 'id' | 'status'>): void {
    if (status !== 'disabled') return
    this.error(`Endpoint ${id} was disabled: its deliveries died in a row (serve --disable-after).`, {
      exit: 1,
      code: 'endpoint_disabled',
      suggestions: ['Make the receiver answer 2xx, then run tablepay listen again: it registers a new endpoint.'],
    })
  }

  /**
   * Its endpoint deleted elsewhere (`webhooks delete` in another terminal, a teammate on a shared database):
   * nothing more comes to it, so `listen` says so and ends, with nothing left to remove.
   */
  #endIfDeleted(id: string): void {
    if (id !== this.#endpoint?.id) return
    this.#endpoint = undefined
    this.error(renderListenDeleted(id), {
      exit: 1,
      code: 'endpoint_deleted',
      suggestions: ['Run tablepay listen again: it registers a new endpoint.'],
    })
  }

  // A server restarted on its data dir still has the endpoint (disabled meanwhile, perhaps); one that lost its
  // data needs a new one, as does an account restored from a snapshot saved without it. `gone` says which.
  async #ensureEndpoint(endpoint: Endpoint, gone: (id: string) => string): Promise<Endpoint> {
    try {
      this.#endIfDisabled(await this.tailClient.getWebhookEndpoint(endpoint.id))
      return endpoint
    } catch (error) {
      if (!(error instanceof TablepayApiError && error.status === 404)) throw error
      this.notice(gone(endpoint.id))
      return this.#register()
    }
  }

  /** Deletes the endpoint; when that fails, says why. */
  async #remove(id: string): Promise<string | undefined> {
    for (let tries = 1; ; tries++) {
      try {
        await this.client.deleteWebhookEndpoint(id)
        this.notice(`Removed endpoint ${id}.`)
        return undefined
      } catch (error) {
        if (error instanceof TablepayApiError && error.status === 404) {
          // asked again: the first delete removed it, and its answer was lost (a fault's, a cut connection's)
          if (tries > 1) this.notice(`Removed endpoint ${id}.`)
          return undefined
        }
        // a server that answered an error (a fault, a busy moment) is asked once more, after its Retry-After
        const wait = tries === 1 && error instanceof TablepayApiError ? waitAfter(error, FIRST_WAIT_MS) : undefined
        if (wait === undefined)
          return `Could not remove endpoint ${id}: ${error instanceof TablepayError ? error.message : String(error)}`
        await delay(wait)
      }
    }
  }
}
