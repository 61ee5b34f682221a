import {Args, Errors, Flags} from '@oclif/core'
import type {Check, TablepayClient} from '../client/client.js'
import {TablepayApiError} from '../client/errors.js'
import {acceptExternalId} from '../domain/check-push-fast.js'
import {quotedInput} from '../domain/quoted-input.js'

/**
 * A check as users name it on the command line: its `chk_…` id, or else the
 * POS id it was pushed under. Every command that takes a check takes it
 * through `checkFlag` or `checkArg`, whose value is this, not the text: a
 * command cannot send the text as a check id without saying which it is.
 */
export class CheckRef {
  constructor(readonly text: string) {}

  /**
   * The check id: a POS id's check's (an unknown one is the API's 404, with the hint of cli/errors.ts); a
   * `chk_…` one as is, unless no check has it and a POS id does. A check gone since (a restore) keeps its id:
   * the request log still finds its requests, and an action on it is the API's own 404.
   *
   * @example
   * await new CheckRef('t12').id(client) // 'chk_4f0b6k2m9q1x8s7d3a5z'
   */
  async id(client: TablepayClient): Promise<string> {
    if (!this.#isId()) return (await client.getCheckByExternalId(this.text)).id
    const found = await this.fetch(client).catch((error: unknown) =>
      isNotFound(error) ? undefined : Promise.reject(error),
    )
    return found?.id ?? this.text
  }

  /**
   * The check itself: the one with this `chk_…` id, or else the one pushed under this POS id (a POS may name
   * its checks `chk_…` too); `external` reads the text as a POS id whatever it looks like.
   *
   * @example
   * await new CheckRef('t12').fetch(client) // the check pushed as t12
   */
  async fetch(client: TablepayClient, {external = false} = {}): Promise<Check> {
    if (external || !this.#isId()) return client.getCheckByExternalId(this.text)
    try {
      return await client.getCheck(this.text)
    } catch (error) {
      if (!isNotFound(error)) throw error
      return client.getCheckByExternalId(this.text).catch(() => Promise.reject(error))
    }
  }

  #isId = () => this.text.startsWith('chk_')
}

const isNotFound = (error: unknown) => error instanceof TablepayApiError && error.status === 404

/** What every command's help says a check may be. */
export const CHECK_NAMES = 'its id (chk_…) or the POS id it was pushed under'

/**
 * `text` as a POS id the API can name in a path, or a wrong command line saying it is not `what`: not a
 * request for the server to refuse.
 *
 * @example
 * posId('t12', 'a POS id') // 't12'
 */
export function posId(text: string, what = 'a POS id'): string {
  if (acceptExternalId(text) === undefined) {
    const message = `${quotedInput(text)} is not ${what}: a POS id is 1-64 characters of A-Z a-z 0-9 . _ : ~ @ + = -.`
    // an argument's parse error is not the parser's own, so it says its exit code itself
    throw new Errors.CLIError(message, {exit: 2})
  }
  return text
}

const parse = async (text: string) => new CheckRef(posId(text, CHECK_NAMES))

/**
 * `--check` (`-c`), the same in every command that takes one; `summary` says what the command does with it.
 *
 * @example
 * static override flags = {check: checkFlag({required: true})}
 */
export const checkFlag = Flags.custom<CheckRef>({
  char: 'c',
  helpValue: 'CHECK',
  summary: `The check: ${CHECK_NAMES}.`,
  parse,
})

/**
 * `ID`, for a command about one check (`checks get`).
 *
 * @example
 * static override args = {ID: checkArg({required: true})}
 */
// never from stdin (flags/arg.ts)
export const checkArg = Args.custom<CheckRef>({description: `The check: ${CHECK_NAMES}.`, parse, ignoreStdin: true})
