import type {H3Event} from 'h3'

/**
 * Marks the answer of `event` as made only of what its own unit of work
 * wrote, which the service returned once it was on disk (and with it every
 * change before it: the journal writes in order). The app then sends it
 * without waiting for changes other requests made since, which under steady
 * load meant one more journal write per answer (docs/benchmarks.md).
 *
 * @example
 * const outcome = await service.checks.push(accountId, externalId, body)
 * markDurable(event)
 */
export function markDurable(event: H3Event): void {
  event.context.durable = true
}

/** Whether the answer of `event` rests only on its own durable unit of work (`markDurable`). */
export const isDurable = (event: H3Event): boolean => event.context.durable === true
