import {Fifo} from './fifo.js'

/** One attempt's turn with its endpoint: it may send once `ready` resolves. */
export interface Turn {
  /** Resolves when the endpoint's attempts started before this one have sent or given up, and a place is free. */
  ready: Promise<void>
  /** Its request went out: the next attempt's turn may come. */
  sent(): void
  /** Its answer came, or it gave up: its place, if it held one, is free. Calling it again is harmless. */
  done(): void
}

interface Ticket {
  go: () => void
  /** Still in the order: it has neither sent nor given up. */
  queued: boolean
  /** Holds one of the endpoint's places, from its turn to its answer. */
  holds: boolean
}

interface Line {
  tickets: Fifo<Ticket>
  /** Places held. */
  open: number
}

/**
 * An endpoint's attempts send their requests in the order they started,
 * and at most `places` of them wait on its receiver at once. The reads
 * before a send (a claim on PostgreSQL) may end in any order, and run
 * ahead of the places (scheduler.ts, `ahead`); a receiver sees its
 * deliveries in due order, and never more than `places` requests open.
 *
 * @example
 * const order = new SendOrder(8)
 * const turn = order.next('we_1')
 * await turn.ready // the attempts started before it have sent, and a place is free
 * turn.sent() // its request went out
 * turn.done() // its answer came: the place is free
 */
export class SendOrder {
  readonly #lines = new Map<string, Line>()

  constructor(readonly places: number) {}

  /** The next attempt to the endpoint `lane` names (scheduler.ts, `Entry`): `ready`, then `sent`, then `done`. */
  next(lane: string): Turn {
    let line = this.#lines.get(lane)
    if (!line) this.#lines.set(lane, (line = {tickets: new Fifo(), open: 0}))
    const at = line
    let go!: () => void
    const ready = new Promise<void>((resolve) => (go = resolve))
    const ticket: Ticket = {go, queued: true, holds: false}
    at.tickets.push(ticket)
    this.#pass(lane, at)
    const sent = () => {
      ticket.queued = false
      this.#pass(lane, at)
    }
    const done = () => {
      if (ticket.holds) at.open--
      ticket.holds = false
      sent()
    }
    return {ready, sent, done}
  }

  /** The first attempt still in the order gets its turn once a place is free; an empty line is forgotten. */
  #pass(lane: string, line: Line): void {
    let head = line.tickets.peek()
    while (head && !head.queued) {
      line.tickets.shift()
      head = line.tickets.peek()
    }
    if (head && !head.holds && line.open < this.places) {
      head.holds = true
      line.open++
      head.go()
    }
    if (!head && line.open === 0 && this.#lines.get(lane) === line) this.#lines.delete(lane)
  }
}
