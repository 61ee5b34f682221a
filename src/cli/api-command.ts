import {type Command as OclifCommand, Flags, type Interfaces} from '@oclif/core'
import {TablepayClient} from '../client/client.js'
import {resolveClientConfig} from '../client/config.js'
import {apiKeyProblem} from '../shared/server-url.js'
import {CLIENT_HEADER} from '../domain/constants.js'
import {wholeMs} from '../domain/duration.js'
import {Command} from './command.js'
import {API_EXIT_CODES} from './exit-codes.js'
import {durationOrNone} from './flags/duration.js'
import {serverUrlFlag} from './flags/server-url.js'
import {withSpinner} from './views/spinner.js'

export type CommandFlags<T extends typeof OclifCommand> = Interfaces.InferredFlags<
  (typeof ApiCommand)['baseFlags'] & T['flags']
>
export type CommandArgs<T extends typeof OclifCommand> = Interfaces.InferredArgs<T['args']>

/**
 * `--timeout`, in seconds, `seconds` when not given: 30 is long enough for any answer the server gives at
 * once, so a script against a stuck server fails instead of waiting for good; a command whose answer waits
 * for receivers (their timeout is the server's to set) gives 0, and waits as long as that takes.
 *
 * @example
 * static override baseFlags = {...ApiCommand.baseFlags, timeout: timeoutFlag(0)}
 */
export function timeoutFlag(seconds: number) {
  const waits = seconds === 0 ? " This command's answer waits for receivers, as long as the server lets them take." : ''
  return durationOrNone({
    summary: `How long to wait for each of the server's answers, e.g. 30s or 5m; 0 waits as long as it takes.${waits}`,
    default: seconds,
    defaultHelp: async () => (seconds === 0 ? '0' : `${seconds}s`),
    helpValue: 'DURATION',
    helpGroup: 'CONNECTION',
  })
}

/**
 * Base of every command that talks to a server: the connection flags, the
 * parsed `this.flags`/`this.args`, and the client (found after parsing, so
 * `--help` and flag errors never need a key; a failure to find it is thrown
 * only when the command uses it).
 */
export abstract class ApiCommand<T extends typeof OclifCommand> extends Command {
  static override exitCodes = API_EXIT_CODES

  static override baseFlags = {
    url: serverUrlFlag({
      summary:
        'Server URL. Default: TABLEPAY_URL, then a running server found on this machine (see README), then http://127.0.0.1:4747.',
      helpGroup: 'CONNECTION',
    }),
    'api-key': Flags.string({
      char: 'k',
      summary: 'API key. Default: TABLEPAY_API_KEY, then the write key of a running server found on this machine.',
      helpGroup: 'CONNECTION',
      // `-k "$KEY"` with KEY unset would otherwise go on with whatever key is found
      parse: async (text) => {
        const problem = apiKeyProblem(text)
        if (problem) throw new Error(`The key given ${problem}`)
        return text
      },
    }),
    timeout: timeoutFlag(30),
  }

  protected flags!: CommandFlags<T>
  protected args!: CommandArgs<T>
  #clients?: {client: TablepayClient; tailClient: TablepayClient} | {error: unknown}

  public override async init(): Promise<void> {
    await super.init()
    const {args, flags} = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof ApiCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    this.flags = flags as CommandFlags<T>
    this.args = args as CommandArgs<T>
    // found now, as that may ask servers whether they run; a failure waits until the command needs the client
    const timeoutMs = wholeMs(this.flags.timeout)
    this.#clients = await resolveClientConfig({url: this.flags.url, apiKey: this.flags['api-key']}).then(
      (options) => {
        const client = (headers?: Record<string, string>) =>
          new TablepayClient({...options, timeoutMs, headers, fetch: (input, init) => this.#send(input, init)})
        return {client: client(), tailClient: client({[CLIENT_HEADER]: 'cli-tail'})}
      },
      (error: unknown) => ({error}),
    )
  }

  protected override keyFrom(): string | undefined {
    return this.flags?.['api-key'] || !process.env.TABLEPAY_API_KEY ? undefined : 'TABLEPAY_API_KEY'
  }

  /** Ends the requests still out once the command has ended (`finally`): none of them keeps the process alive. */
  readonly #ended = new AbortController()

  // a server that takes its time (a fault's --delay, a stopped process) shows a spinner, as every wait does
  #send(input: string, init: RequestInit): Promise<Response> {
    const signal = init.signal ? AbortSignal.any([init.signal, this.#ended.signal]) : this.#ended.signal
    return withSpinner('Waiting for the tablepay server', fetch(input, {...init, signal}), {
      quiet: this.jsonEnabled(),
      request: true,
    })
  }

  // a run stopped by Ctrl+C may leave a request unanswered (a scenario's step under way, docs/scenarios.md)
  protected override async finally(error: Error | undefined): Promise<unknown> {
    this.#ended.abort()
    return super.finally(error)
  }

  protected get client(): TablepayClient {
    return this.#found().client
  }

  /**
   * The client of what a command reads to draw itself (a tail's stream and what it catches up on, the check
   * a `--check` filter names): its requests say so (`X-Tablepay-Client: cli-tail`), and the request log
   * leaves them out (docs/api.md, "The request log").
   */
  protected get tailClient(): TablepayClient {
    return this.#found().tailClient
  }

  #found() {
    if ('error' in this.#clients!) throw this.#clients.error
    return this.#clients!
  }
}
