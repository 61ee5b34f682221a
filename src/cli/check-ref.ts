import {Args, Flags} from '@oclif/core'
import type {Check, TablepayClient} from '../client/client.js'

/**
 * A check as users name it on the command line: its `chk_…` id, or else the
 * POS id it was pushed under. Every command that takes a check takes it
 * through `checkFlag` or `checkArg`, whose value is this, not the text: a
 * command cannot send the text as a check id without saying which it is.
 */
export class CheckRef {
  constructor(readonly text: string) {}

  /**
   * The check id: a `chk_…` id as is (no request), anything else looked up
   * as the POS id (an unknown one is the API's 404, with the hint of cli/errors.ts).
   *
   * @example
   * await new CheckRef('t12').id(client) // 'chk_4f0b6k2m9q1x8s7d3a5z'
   */
  async id(client: TablepayClient): Promise<string> {
    return this.#isId() ? this.text : (await client.getCheckByExternalId(this.text)).id
  }

  /**
   * The check itself; `external` reads the text as a POS id whatever it looks like.
   *
   * @example
   * await new CheckRef('t12').fetch(client) // the check pushed as t12
   */
  fetch(client: TablepayClient, {external = false} = {}): Promise<Check> {
    return external || !this.#isId() ? client.getCheckByExternalId(this.text) : client.getCheck(this.text)
  }

  #isId = () => this.text.startsWith('chk_')
}

/** What every command's help says a check may be. */
export const CHECK_NAMES = 'its id (chk_…) or the POS id it was pushed under'

const parse = async (text: string) => new CheckRef(text)

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
export const checkArg = Args.custom<CheckRef>({description: `The check: ${CHECK_NAMES}.`, parse})
