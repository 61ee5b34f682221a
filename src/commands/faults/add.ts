import {Flags} from '@oclif/core'
import {methodOf, pathPattern} from '../../cli/flags/filter.js'
import type {Fault, FaultInput} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {positiveDuration, secondsUpTo} from '../../cli/flags/duration.js'
import {renderFaultAdded} from '../../cli/views/fault.js'
import {wholeMs} from '../../domain/duration.js'
import {
  FAULT_METHODS,
  FAULT_STATUSES,
  MAX_FAULT_DELAY_MS,
  MAX_FAULT_SEED,
  MAX_FAULT_TIMES,
  MAX_RETRY_AFTER_S,
  RETRY_AFTER_ONLY,
  STRIKES_NONE,
  canStrike,
} from '../../domain/faults.js'
import {quotedInput} from '../../domain/quoted-input.js'
import {parseProbability} from '../../cli/webhooks/chaos-spec.js'

export default class FaultsAdd extends ApiCommand<typeof FaultsAdd> {
  static override summary = 'Make the next matching API requests fail, slow down or lose their answer.'

  static override description = `A fault answers a status (429, 500, 502, 503, 504, with Retry-After on 429 and 503), holds the answer (--delay), or closes the connection with no answer (--reset). \
With --after the request is carried out first (and saved, if it succeeds) and only its answer, success or refusal, is replaced: the lost answer a POS must recover from by retrying. \
It strikes once unless --times or --always say otherwise; the simulator's own routes (/v1/sim/…) are never faulted. README: "Test your POS against failures".`

  static override examples = [
    {
      description: 'Lose the answer of the next push (it is saved; the POS must retry)',
      command: '<%= config.bin %> <%= command.id %> --method PUT --path "/v1/checks/external/*" --status 503 --after',
    },
    {description: 'A 20-second answer', command: '<%= config.bin %> <%= command.id %> --delay 20s'},
    {
      description: 'Half of all requests answer 502, the same ones on every run',
      command: '<%= config.bin %> <%= command.id %> --status 502 --always --probability 0.5 --seed 7',
    },
  ]

  static override flags = {
    method: Flags.string({
      summary: `Only requests with this method, in any case: ${FAULT_METHODS.join(', ')} (GET takes HEAD too).`,
      parse: async (text) => methodOf(text, FAULT_METHODS),
    }),
    path: Flags.string({
      summary: 'Only paths matching this pattern: * one segment, ** the rest (/v1/checks/external/*).',
      parse: async (text) => pathPattern(text),
    }),
    status: Flags.custom<number>({
      summary: `Answer with this status: ${FAULT_STATUSES.join(', ')}.`,
      parse: async (text) => {
        const status = Number(text)
        if (!(FAULT_STATUSES as readonly number[]).includes(status))
          throw new Error(`${quotedInput(text)} is not one of ${FAULT_STATUSES.join(', ')}.`)
        return status
      },
    })(),
    'retry-after': secondsUpTo(MAX_RETRY_AFTER_S)({
      summary: 'Retry-After on 429 and 503 only, in whole seconds (default 1s, at most 1d).',
    }),
    delay: Flags.custom<number>({
      summary: 'Hold the answer this long (at most 60s), e.g. 12s or 500ms.',
      parse: async (text) => {
        const seconds = positiveDuration(text)
        if (seconds * 1000 > MAX_FAULT_DELAY_MS)
          throw new Error(`${quotedInput(text)} is longer than 60s, the longest a fault holds an answer.`)
        return seconds
      },
    })(),
    reset: Flags.boolean({summary: 'Close the connection with no answer.', exclusive: ['status']}),
    after: Flags.boolean({summary: 'Carry the request out and save it first; only the answer is replaced.'}),
    times: Flags.integer({
      summary: `Strike this many requests (default 1; at most ${MAX_FAULT_TIMES}).`,
      min: 1,
      max: MAX_FAULT_TIMES,
      exclusive: ['always'],
    }),
    always: Flags.boolean({summary: 'Strike until removed (`faults clear`).'}),
    probability: Flags.custom<number>({
      summary: 'Strike each matching request with this probability (0-1).',
      parse: async (text) => parseProbability(text),
    })(),
    seed: Flags.integer({
      summary: 'Seed of the draws: the same seed strikes the same requests on every run.',
      min: 0,
      max: MAX_FAULT_SEED,
    }),
  }

  public async run(): Promise<Fault> {
    const {method, path, status, delay, reset, after, times, always, probability, seed} = this.flags
    if (status === undefined && delay === undefined && !reset)
      this.error('A fault needs --status, --delay or --reset: say what it does to the requests it strikes.', {
        exit: 2,
        code: 'invalid_usage',
      })
    // what the server would refuse too (422), said as the command line it is
    if (this.flags['retry-after'] !== undefined && status !== 429 && status !== 503)
      this.error(`--retry-after ${RETRY_AFTER_ONLY}: add --status 429 or 503, or leave it out.`, {
        exit: 2,
        code: 'invalid_usage',
      })
    if ((method || path) && !canStrike({method, path})) {
      const given = [method && `--method ${method}`, path && `--path ${path}`].filter(Boolean).join(' ')
      this.error(`${given} ${STRIKES_NONE}.`, {exit: 2, code: 'invalid_usage'})
    }
    const input: FaultInput = {
      ...(method || path ? {match: {method: method as 'GET' | undefined, path}} : {}),
      status: status as FaultInput['status'],
      retry_after_s: this.flags['retry-after'],
      delay_ms: delay === undefined ? undefined : wholeMs(delay),
      reset: reset || undefined,
      after: after || undefined,
      times: always ? null : times,
      probability,
      seed,
    }
    const fault = await this.client.addFault(input)
    this.log(renderFaultAdded(fault))
    return fault
  }
}
