import {Errors} from '@oclif/core'
import {arg} from '../flags/arg.js'
import {TablepayApiError} from '../../client/errors.js'
import {SnapshotName} from '../../domain/snapshots.js'
import {describeError} from '../errors.js'
import {quotedInput} from '../../domain/quoted-input.js'

/** The NAME argument of the snapshot commands, checked as it is read: before the server is looked for. */
export const snapshotNameArg = arg({
  description: 'Snapshot name: 1-64 characters of a-z 0-9 _ -, starting with a letter or digit; not import.',
  required: true,
  parse: async (name) => snapshotName(name),
})

/** `name`, checked here: a bad one is a wrong command line (exit 2), sent nowhere. */
function snapshotName(name: string): string {
  const [problem] = SnapshotName.safeParse(name).error?.issues ?? []
  if (problem)
    throw new Errors.CLIError(`${quotedInput(name)} is not a snapshot name: it ${problem.message}.`, {
      exit: 2,
      code: 'invalid_usage',
      suggestions: ['Name it like lunch-rush or ci_base.'],
    })
  return name
}

/**
 * `call`, with the server's refusal of what was given (an unknown name, a document it cannot take)
 * as a wrong command line: exit 2, nothing was done (docs/cli.md, "Flags and exit codes"). `refused`: what
 * to try after a 422, in this command's terms; the server's message says what was wrong with it.
 */
export async function asInput<T>(call: Promise<T>, refused?: string): Promise<T> {
  try {
    return await call
  } catch (error) {
    if (!(error instanceof TablepayApiError) || (error.status !== 404 && error.status !== 422)) throw error
    const hint = error.status === 404 ? 'See the names with `tablepay snapshots list`.' : refused
    const suggestions = hint === undefined ? undefined : [hint]
    // with --json the API's own body is printed, request id and details included (errors.ts, errorBody); not as
    // `cause`, which oclif prints again under the message
    throw Object.assign(new Errors.CLIError(describeError(error), {exit: 2, code: error.code, suggestions}), {
      refusal: error,
    })
  }
}

/** The exit codes of the snapshot commands, where they differ from every API command's. */
export const SNAPSHOT_EXIT_CODES = {
  2: 'A wrong command line, or a name or document the server refused (no such snapshot, another format): nothing was done.',
}
