import type {DeliveryRecord} from '../domain/records.js'
import type {Change} from '../store/store.js'

/** How long a read of the pending deliveries waits after one that failed, and for how long it tries, in ms. */
const READ_AGAIN_MS = 250
const READ_FOR_MS = 120_000

/**
 * The deliveries an instance on a database may not have been told of: those the other instances wrote while
 * its listening connection was down, and those of its own units whose COMMIT's answer was lost
 * (docs/postgres.md, "Delivery across instances"). `catchUp` reads the pending ones, again while the storage
 * heals, and hands over those no commit told of while it read: the read may be older than that commit. A
 * `catchUp` asked while one reads reads once more after it.
 *
 * @example
 * const missed = new MissedDeliveries(() => storage.all('deliveries', {status: 'pending'}), track)
 * storage.shared.onReconnect(() => void missed.catchUp())
 */
export class MissedDeliveries {
  #heard: Set<string> | undefined
  #reading = false
  #again = false

  constructor(
    private readonly read: () => Promise<DeliveryRecord[]>,
    private readonly missed: (pending: DeliveryRecord[]) => void,
  ) {}

  /** Changes the queue is told of: a delivery among them is newer than what a read under way may find. */
  told(changes: readonly Change[]): void {
    if (this.#heard) for (const [collection, id] of changes) if (collection === 'deliveries') this.#heard.add(id)
  }

  async catchUp(): Promise<void> {
    if (this.#reading) return void (this.#again = true)
    this.#reading = true
    try {
      do {
        this.#again = false
        const heard = (this.#heard = new Set())
        const pending = await this.#readWhileHealing()
        this.#heard = undefined
        if (pending) this.missed(pending.filter(({id}) => !heard.has(id)))
      } while (this.#again)
    } finally {
      this.#reading = false
      this.#heard = undefined
    }
  }

  async #readWhileHealing(): Promise<DeliveryRecord[] | undefined> {
    for (const until = Date.now() + READ_FOR_MS; ;) {
      try {
        return await this.read()
      } catch {
        if (Date.now() > until) return undefined
        await new Promise((resolve) => setTimeout(resolve, READ_AGAIN_MS).unref())
      }
    }
  }
}
