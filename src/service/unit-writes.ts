import type {CollectionName, Collections} from '../domain/records.js'
import type {Change} from './storage.js'

/** The change that deletes the record `id` of `collection`, naming its `owner` when given (`Change`). */
export const deletion = (collection: CollectionName, id: string, owner?: string): Change =>
  (owner === undefined ? [collection, id, null] : [collection, id, null, owner]) as Change

/**
 * The writes of one unit of work, in order, kept until the unit ends and its
 * storage applies them; a write after that is a slip and throws. The units of
 * both storages hold one (memory-storage.ts, postgres/unit.ts).
 *
 * @example
 * const writes = new UnitWrites()
 * writes.put('checks', check.id, check)
 * await apply(writes.end())
 */
export class UnitWrites {
  #changes: Change[] | undefined = []

  /** The writes so far, to add to; throws once the unit has ended. */
  get open(): Change[] {
    if (!this.#changes) throw new Error('storage: a write outside a unit of work')
    return this.#changes
  }

  put<C extends CollectionName>(collection: C, id: string, record: Collections[C]): void {
    this.open.push([collection, id, record] as Change)
  }

  delete(collection: CollectionName, id: string, owner?: string): void {
    this.open.push(deletion(collection, id, owner))
  }

  /** Ends the unit: returns its writes (none the second time), and refuses any more. */
  end(): Change[] {
    const changes = this.#changes ?? []
    this.#changes = undefined
    return changes
  }
}
