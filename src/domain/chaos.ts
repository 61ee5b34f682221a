import {createHash} from 'node:crypto'
import type {DeliveryRecord, EndpointChaos, WebhookEndpointRecord} from './records.js'
import type {Chaos, ChaosInput} from './schemas.js'
import {isoTime} from './timestamps.js'

/**
 * Two numbers in [0, 1) for the `n`th delivery of an endpoint under `seed`: the same seed and the
 * same order of deliveries draw the same duplicates and delays on every run (docs/api.md, "Delivery chaos").
 *
 * @example
 * chaosDraws(42, 0) // [0.31…, 0.87…], on every run
 */
export function chaosDraws(seed: number, n: number): [number, number] {
  const digest = createHash('sha256').update(`${seed}:${n}`).digest()
  return [digest.readUIntBE(0, 6) / 2 ** 48, digest.readUIntBE(6, 6) / 2 ** 48]
}

/**
 * Draws an endpoint counts before its count starts again at 0: far past what any run makes, and exact as a
 * number, so that the count an export holds, drawn on from any count an import takes, imports again.
 */
export const DRAWS = 2 ** 48

/** The chaos `PUT` sets: given values, zero for the others, a random seed unless one is given; draws start again. */
export function startChaos(input: ChaosInput, randomSeed: () => number): EndpointChaos {
  return {
    duplicate: input.duplicate ?? 0,
    reorder_window_s: input.reorder_window_s ?? 0,
    seed: input.seed ?? randomSeed(),
    drawn: 0,
  }
}

/**
 * A new delivery to a chaos endpoint: due a random time in [0, window] later, marked for a
 * duplicate with probability `duplicate`. Returns it with the endpoint's chaos one draw further.
 *
 * @example
 * const {delivery, chaos} = stirDelivery(delivery, endpoint.chaos, dueAt)
 */
export function stirDelivery(
  delivery: DeliveryRecord,
  chaos: EndpointChaos,
  dueAt: number,
): {delivery: DeliveryRecord; chaos: EndpointChaos} {
  const [delay, duplicate] = chaosDraws(chaos.seed, chaos.drawn)
  const waitMs = Math.round(delay * chaos.reorder_window_s * 1000)
  return {
    delivery: {
      ...delivery,
      ...(waitMs > 0 ? {next_attempt_at: isoTime(dueAt + waitMs)} : {}),
      ...(duplicate < chaos.duplicate ? {chaos_duplicate: true as const} : {}),
    },
    chaos: {...chaos, drawn: (chaos.drawn + 1) % DRAWS},
  }
}

/** The chaos resource of `GET /sim/webhook-endpoints/{id}/chaos`. */
export function renderChaos(endpoint: WebhookEndpointRecord): Chaos {
  const chaos = endpoint.chaos
  return {
    object: 'webhook_chaos',
    endpoint_id: endpoint.id,
    enabled: chaos !== undefined,
    duplicate: chaos?.duplicate ?? 0,
    reorder_window_s: chaos?.reorder_window_s ?? 0,
    seed: chaos?.seed ?? null,
  }
}
