/**
 * An endpoint's attempts send their requests in the order they started:
 * the reads before a send (a claim on PostgreSQL) may end in any order,
 * and a receiver should see its deliveries in due order. Each attempt waits
 * for the one started before it to send, or to give up without sending.
 *
 * @example
 * const order = new SendOrder()
 * const {turn, sent} = order.next('we_1')
 * await turn // the endpoint's attempt before this one has sent
 * sent() // after this attempt's request went out, or it gave up
 */
export class SendOrder {
  /** Per endpoint with an attempt that has not sent yet: resolves once the one started last has. */
  readonly #last = new Map<string, Promise<void>>()

  /** The next attempt to `endpointId`: `turn` resolves when it may send, and it calls `sent` once it has. */
  next(endpointId: string): {turn: Promise<void>; sent: () => void} {
    const turn = this.#last.get(endpointId) ?? Promise.resolve()
    let resolve!: () => void
    const mine = new Promise<void>((r) => (resolve = r))
    this.#last.set(endpointId, mine)
    const sent = () => {
      resolve()
      // the last one to send leaves nothing behind: the endpoint's next attempt goes at once
      if (this.#last.get(endpointId) === mine) this.#last.delete(endpointId)
    }
    return {turn, sent}
  }
}
