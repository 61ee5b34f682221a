import {Errors} from '@oclif/core'
import {TablepayApiError} from '../client/errors.js'

/**
 * Rethrows the server's refusal of a receiver's URL as said of that URL: the server names its body field,
 * `url`, which on a command line reads as `--url`, the server's own flag (docs/cli.md). Any other error is
 * thrown as it is.
 *
 * @example
 * await client.createWebhookEndpoint({url, event_types}).catch(receiverRefused(url))
 */
export const receiverRefused =
  (url: string | undefined) =>
  (error: unknown): never => {
    const refusal =
      error instanceof TablepayApiError && error.code === 'validation_failed'
        ? error.details?.find((detail) => detail.path === 'url')
        : undefined
    if (!refusal || url === undefined) throw error
    throw new Errors.CLIError(`The receiver's URL ${url} was refused: ${refusal.message}.`, {
      exit: 1,
      code: 'validation_failed',
      suggestions: ['Use an https URL, or plain http to this machine: http://localhost:3000/webhooks.'],
    })
  }
