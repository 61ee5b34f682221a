import type {DeliveryRecord} from '../domain/records.js'
import type {Change} from '../store/store.js'

/** How long a read of the pending deliveries waits after one that failed, and for how long it tries, in ms. */
const READ_AGAIN_MS = 250
const READ_FOR_MS = 120_000

/**
 * The deliveries an instance on a database may not have been told of: those the other instances wrote while
 * its listening connection was down, and those of its own units whose COMMIT's answer was lost
 * (docs/postgres.md, "Delivery across instances"). A read of the pending ones (`newer`) leaves out those the
 * queue was told of while it read: what the queue holds of them is newer. The rest is newer than anything
 * it was told before. `catchUp` reads so, again while the storage heals, and hands over what it found; one
 * asked while another reads reads once more after it.
 *
 * @example
 * const missed = new MissedDeliveries(() => storage.all('deliveries', {status: 'pending'}), track)
 * storage.shared.onReconnect(() => void missed.catchUp())
 */
export class MissedDeliveries {
  /** The ids told of during each read under way. */
  readonly #heard = new Set<Set<string>>()
  #reading = false
  #again = false
  #stopped = false

  constructor(
    private readonly read: () => Promise<DeliveryRecord[]>,
    private readonly missed: (pending: DeliveryRecord[]) => void,
  ) {}

  /** Changes the queue is told of: a delivery among them is newer than what a read under way may find. */
  told(changes: readonly Change[]): void {
    if (this.#heard.size === 0) return
    for (const [collection, id] of changes) if (collection === 'deliveries') for (const ids of this.#heard) ids.add(id)
  }

  /** The pending deliveries, but those the queue was told of while they were read. */
  async newer(): Promise<DeliveryRecord[]> {
    const heard = new Set<string>()
    this.#heard.add(heard)
    try {
      return (await this.read()).filter(({id}) => !heard.has(id))
    } finally {
      this.#heard.delete(heard)
    }
  }

  /** The server stops: a catch-up under way reads no more, and hands nothing over. */
  stop(): void {
    this.#stopped = true
  }

  async catchUp(): Promise<void> {
    if (this.#reading) return void (this.#again = true)
    this.#reading = true
    try {
      do {
        this.#again = false
        const pending = await this.#newerWhileHealing()
        if (pending && !this.#stopped) this.missed(pending)
      } while (this.#again)
    } finally {
      this.#reading = false
    }
  }

  async #newerWhileHealing(): Promise<DeliveryRecord[] | undefined> {
    for (const until = Date.now() + READ_FOR_MS; ;) {
      try {
        return await this.newer()
      } catch {
        if (this.#stopped || Date.now() > until) return undefined
        await new Promise((resolve) => setTimeout(resolve, READ_AGAIN_MS).unref())
      }
    }
  }
}
