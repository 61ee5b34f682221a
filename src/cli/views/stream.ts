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

// The endpoint a live command follows is not on the server it reconnected to: that server lost its data.
const goneFromServer = (endpointId: string) => `Endpoint ${endpointId} is gone from the server`

/** Why `deliveries tail --endpoint` ends when its endpoint is gone: nothing more can come. */
const NO_MORE = 'no attempt to it can come.'

/** The status line of `listen` when the server it reconnected to lost its endpoint (it lost its data). */
export const renderEndpointGone = (endpointId: string): string =>
  `${goneFromServer(endpointId)}: registering a new one.`

/**
 * Why `deliveries tail --endpoint` ends when the server it reconnected to lost its endpoint.
 *
 * @example
 * renderGoneAway('we_1') // 'Endpoint we_1 is gone from the server: no attempt to it can come.'
 */
export const renderGoneAway = (endpointId: string): string => `${goneFromServer(endpointId)}: ${NO_MORE}`

// What a snapshot's restore did to the endpoint a live command follows: the snapshot was saved without it.
const restoredWithout = (endpointId: string) =>
  `The account was restored from a snapshot without endpoint ${endpointId}`

/**
 * The status line of `listen` when a snapshot's restore removed its endpoint
 * (the snapshot was saved without it): it registers it again, with the same
 * secret and settings, and prints its ready line again with the new id.
 *
 * @example
 * renderRestored('we_1') // 'The account was restored from a snapshot without endpoint we_1: registering it again.'
 */
export function renderRestored(endpointId: string): string {
  return `${restoredWithout(endpointId)}: registering it again.`
}

/**
 * Why `deliveries tail --endpoint` ends when a snapshot's restore removed its endpoint.
 *
 * @example
 * renderRestoredAway('we_1') // 'The account was restored from a snapshot without endpoint we_1: no attempt to it can come.'
 */
export function renderRestoredAway(endpointId: string): string {
  return `${restoredWithout(endpointId)}: ${NO_MORE}`
}

// The endpoint a live command follows was deleted while it ran: `webhooks delete`, another terminal, a teammate.
const deletedElsewhere = (endpointId: string) => `Endpoint ${endpointId} was deleted while this ran`

/**
 * Why `deliveries tail --endpoint` ends when its endpoint is deleted.
 *
 * @example
 * renderDeletedAway('we_1') // 'Endpoint we_1 was deleted while this ran: no attempt to it can come.'
 */
export const renderDeletedAway = (endpointId: string): string => `${deletedElsewhere(endpointId)}: ${NO_MORE}`

/**
 * Why `listen` ends when its own endpoint is deleted by someone else.
 *
 * @example
 * renderListenDeleted('we_1') // 'Endpoint we_1 was deleted while this ran (not by listen): nothing more comes to it.'
 */
export const renderListenDeleted = (endpointId: string): string =>
  `${deletedElsewhere(endpointId)} (not by listen): nothing more comes to it.`
