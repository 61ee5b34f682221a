import {Errors} from '@oclif/core'
import {TablepayApiError} from '../client/errors.js'

/**
 * Rethrows the server's refusal of a receiver's URL (its body's `url`, the command's `--forward-to`) as said of
 * that URL, with the request id the server gave it. With --json the server's body is printed as it came
 * (errors.ts, errorBody). Any other error is thrown as it is.
 *
 * @example
 * await client.createWebhookEndpoint({url, event_types}).catch(receiverRefused(url))
 */
export const receiverRefused =
  (url: string | undefined) =>
  (error: unknown): never => {
    if (!(error instanceof TablepayApiError) || error.code !== 'validation_failed' || url === undefined) throw error
    const refusal = error.details?.find((detail) => detail.path === 'url')
    if (!refusal) throw error
    const request = error.requestId ? `\nRequest id: ${error.requestId}` : ''
    throw Object.assign(
      new Errors.CLIError(`The receiver's URL ${url} was refused: ${refusal.message}.${request}`, {
        exit: 1,
        code: 'validation_failed',
        suggestions: ['Use an https URL, or plain http to this machine: http://localhost:3000/webhooks.'],
      }),
      {refusal: error},
    )
  }
