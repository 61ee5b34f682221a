import {Errors, Command as OclifCommand, type Interfaces, toConfiguredId} from '@oclif/core'
import {TablepayError} from '../client/errors.js'
import {cliError, exitOf, failureJson} from './cli-error.js'
import {describeError, shortenGiven, suggestionsFor, tidyParseError} from './errors.js'
import type {CliErrorCode} from './error-codes.js'
import type {ExitCodes} from './exit-codes.js'
import {outputFor} from './output.js'
import {printableLines} from './views/printable.js'
import {shellWord} from '../shared/shell-word.js'

/**
 * What every tablepay command shares, servers and clients alike: `--json`
 * (the value `run()` returns is printed) and the one error path.
 */
export abstract class Command extends OclifCommand {
  static override enableJsonFlag = true

  /** Where the command's exit codes differ from everyone's (exit-codes.ts): its --help lists them. */
  declare static exitCodes?: ExitCodes

  /** The request body's fields its flags fill: the server's messages about them name the flags (errors.ts). */
  declare static fieldFlags?: Readonly<Record<string, string>>

  protected override async catch(error: Interfaces.CommandError): Promise<unknown> {
    const ctor = this.constructor as typeof Command
    const flags = {...ctor.baseFlags, ...ctor.flags, ...(ctor.enableJsonFlag ? {json: {}} : {})}
    tidyParseError(error, `${this.config.bin} ${toConfiguredId(this.id ?? '', this.config)} --help`, flags)
    shortenGiven(error, this.argv)
    // an id no request can name is a wrong command line, sent nowhere; told by its name, so that verify and sign,
    // which run this too, load none of the routes (test/commands/verify.test.ts)
    if (error.name === 'UnsendableSegmentError')
      return this.catch((await cliError(error.message, {code: 'invalid_usage', exit: 2})) as Interfaces.CommandError)
    // a flag's own parser (a duration, a URL, a file) and a command's refusal throw a plain Error: as a CLI error,
    // oclif prints it as every other, each line marked `›`
    if (exitOf(error) === 2 && !(error instanceof Errors.CLIError)) {
      const {code = 'invalid_usage', suggestions} = error as Error & {code?: CliErrorCode; suggestions?: string[]}
      return this.catch((await cliError(error.message, {code, exit: 2, suggestions})) as Interfaces.CommandError)
    }
    // a message may quote what a request or a server said: a terminal shows its control characters, never obeys them
    if (!this.jsonEnabled()) error.message = printableLines(error.message)
    // With --json, toErrorJson prints the error body; without, a client error becomes a CLI error with its code and a next step.
    if (error instanceof TablepayError && !this.jsonEnabled()) {
      const suggestions = suggestionsFor(error, this.keyFrom())
      this.error(printableLines(describeError(error, ctor.fieldFlags)), {exit: 1, code: error.code, suggestions})
    }
    // oclif's catch exits 1 with --json whatever the error says; a bad flag or argument exits 2 either way
    process.exitCode ??= exitOf(error)
    return super.catch(error)
  }

  /**
   * This command line again with `--starting-after cursor` in place of any it had: the next page of a list,
   * with the filters and `--limit` it was given (views/page.ts).
   */
  protected readonly nextPage = (cursor: string): string => {
    const kept = this.argv.filter(
      (arg, i) =>
        arg !== '--starting-after' && this.argv[i - 1] !== '--starting-after' && !arg.startsWith('--starting-after='),
    )
    const id = toConfiguredId(this.id ?? '', this.config)
    return [this.config.bin, id, ...[...kept, '--starting-after', cursor].map(shellWord)].join(' ')
  }

  /** Where the key a command sent came from, when not from its command line: ApiCommand's say. */
  protected keyFrom(): string | undefined {
    return undefined
  }

  /** It keeps printing records (`emit`): with --json, JSON lines, an error that ends it one more (docs/cli.md). */
  static keepsPrinting = false

  /** One record of a command that keeps printing (`deliveries tail`, `logs tail`, `listen`): see output.ts. */
  protected emit(json: unknown, text: string): void {
    outputFor(this.jsonEnabled()).emit(json, text)
  }

  /** A command that keeps printing prints an error body as one line too, before its first record as after it. */
  override logJson(json: unknown): void {
    if ((this.constructor as typeof Command).keepsPrinting) process.stdout.write(`${JSON.stringify(json)}\n`)
    else super.logJson(json)
  }

  // Set by `fail`: with --json a failed check prints its report, not an error body.
  #failedReport?: unknown

  /**
   * Ends a run whose report says no (`checks lint`, `checks replay`,
   * `receiver check`): exit 1 with `message`, and with --json the report,
   * in the same shape as when it passes.
   */
  protected fail(report: unknown, message: string, options: {code: CliErrorCode; suggestions?: string[]}): never {
    this.#failedReport = report
    this.error(message, {exit: 1, ...options})
  }

  /** A status line for the person watching a long-running command, on stderr even with --json: see output.ts. */
  protected notice(text: string): void {
    outputFor(this.jsonEnabled()).notice(text)
  }

  protected override toErrorJson(error: unknown): unknown {
    if (this.#failedReport) return this.#failedReport
    // a refusal's next step, as the human output gives it: one body shape whoever refused (errors.ts, `errorBody`)
    if (!(error instanceof TablepayError)) return failureJson(error)
    const suggestions = suggestionsFor(error, this.keyFrom())
    return suggestions ? {error: {...error.toJSON().error, suggestions}} : error.toJSON()
  }
}
