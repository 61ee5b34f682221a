import {Flags} from '@oclif/core'
import {arg} from '../../cli/flags/arg.js'
import type {Chaos} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {parseProbability, parseSeed, parseWindow} from '../../cli/webhooks/chaos-spec.js'
import {renderChaos} from '../../cli/views/endpoint.js'

export default class WebhooksChaos extends ApiCommand<typeof WebhooksChaos> {
  static override summary = "Duplicate and reorder an endpoint's deliveries, to prove your receiver copes."

  static override description = `Delivery is at-least-once and unordered. With --duplicate P, a delivery that succeeded is sent once more with probability P \
(same body and event id, a fresh signature; the attempt shows duplicate: true). With --reorder W, each new delivery waits a random time up to W \
on the scheduler clock before its first attempt, so later events can arrive first (\`clock advance\` releases them). \
The draws come from --seed (printed when chosen at random): the same seed and the same events give the same run. \
Without flags it shows the endpoint's chaos; --off ends it.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> we_4f0b6k2m9q1x8s7d3a5z --duplicate 0.3 --reorder 10s',
    '<%= config.bin %> <%= command.id %> we_4f0b6k2m9q1x8s7d3a5z --duplicate 1 --seed 42',
    '<%= config.bin %> <%= command.id %> we_4f0b6k2m9q1x8s7d3a5z --off',
  ]

  // oclif writes --off's exclusions as one choice of four; the three settings go together
  static override usage = [
    '<%= command.id %> ID [--duplicate P] [--reorder DURATION] [--seed N] [FLAGS]',
    '<%= command.id %> ID --off [FLAGS]',
  ]

  static override args = {ID: arg({description: 'Endpoint id (we_…).', required: true})}

  static override flags = {
    duplicate: Flags.custom<number>({
      helpValue: 'P',
      summary: 'Probability (0-1) that a success is sent again.',
      parse: async (t) => parseProbability(t),
    })(),
    reorder: Flags.custom<number>({
      helpValue: 'DURATION',
      summary: 'Longest random delay of a new delivery (0 to 1h).',
      parse: async (t) => parseWindow(t),
    })(),
    seed: Flags.custom<number>({
      helpValue: 'N',
      summary: 'Seed of the draws, to repeat a run.',
      parse: async (t) => parseSeed(t),
    })(),
    off: Flags.boolean({summary: 'End the chaos.', exclusive: ['duplicate', 'reorder', 'seed']}),
  }

  public async run(): Promise<Chaos> {
    const {duplicate, reorder, seed, off} = this.flags
    const id = this.args.ID
    if (seed !== undefined && duplicate === undefined && reorder === undefined)
      this.error('--seed needs --duplicate or --reorder: it seeds their draws.', {exit: 2, code: 'invalid_usage'})
    const chaos = off
      ? await this.client.endWebhookChaos(id)
      : duplicate === undefined && reorder === undefined && seed === undefined
        ? await this.client.getWebhookChaos(id)
        : await this.client.setWebhookChaos(id, {duplicate, reorder_window_s: reorder, seed})
    this.log(renderChaos(chaos))
    return chaos
  }
}
