import {Command, type Interfaces} from '@oclif/core'
import {TablepayError} from '../client/errors.js'
import {describeError, errorBody, suggestionsFor} from './errors.js'

/**
 * What every tablepay command shares, servers and clients alike: `--json`
 * (the value `run()` returns is printed) and the one error path.
 */
export abstract class TablepayCommand extends Command {
  static override enableJsonFlag = true

  protected override async catch(error: Interfaces.CommandError): Promise<unknown> {
    // With --json, toErrorJson prints the error body; without, a client error becomes a CLI error with its code and a next step.
    if (error instanceof TablepayError && !this.jsonEnabled()) {
      this.error(describeError(error), {exit: 1, code: error.code, suggestions: suggestionsFor(error)})
    }
    return super.catch(error)
  }

  protected override toErrorJson(error: unknown): unknown {
    return errorBody(error)
  }
}
