import {plural} from './format.js'

/**
 * The status line of a live command (`listen`, `deliveries tail`, `logs
 * tail`) whose stream dropped: it reconnects rather than exits.
 *
 * @example
 * renderStreamDropped('the server closed it') // 'Stream dropped (the server closed it); reconnecting…'
 */
export function renderStreamDropped(reason: string): string {
  return `Stream dropped (${reason}); reconnecting…`
}

/**
 * The status line once the stream is open again; with `missed`, how many
 * records made while it was away follow (as lines like the others).
 *
 * @example
 * renderReconnected({count: 2, noun: 'attempt'}) // 'Reconnected; 2 attempts made meanwhile follow.'
 */
export function renderReconnected(missed?: {count: number; noun: string}): string {
  if (!missed || missed.count === 0) return 'Reconnected.'
  return `Reconnected; ${plural(missed.count, missed.noun)} made meanwhile ${missed.count === 1 ? 'follows' : 'follow'}.`
}
