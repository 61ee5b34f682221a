import type {Change} from '../service/storage.js'
import {RecentMap} from '../store/recent-map.js'

/**
 * Records whose last commit number an instance remembers, to pass on each one's changes in commit order
 * (docs/postgres.md, "Changes reach the listeners in commit order").
 */
const ORDERED_KEYS = 10_000

/**
 * The commit number of each record's change an instance passed on last,
 * here or from another instance: what keeps an older change from reaching a
 * listener after a newer one.
 *
 * @example
 * const order = new CommitOrder()
 * const fresh = order.fresh(changes, commit) // those not overtaken by a later commit
 */
export class CommitOrder {
  readonly #passedOn = new RecentMap<string, number>(ORDERED_KEYS)

  /**
   * The changes of the unit numbered `commit` that are newer than those
   * already passed on for the same records. Two units on one record commit in
   * turn, but their answers may come back the other way round, and another
   * instance's notification later than this one's own next change: the older
   * change is left out, so a listener never ends on it (docs/postgres.md).
   */
  fresh(changes: readonly Change[], commit: number | undefined): readonly Change[] {
    // a note from an instance of a version before commit numbers
    if (commit === undefined) return changes
    let fresh: Change[] | undefined
    for (let i = 0; i < changes.length; i++) {
      const [collection, id] = changes[i]!
      const key = `${collection}\u0000${id}`
      // the same number: the record written twice by this unit
      if ((this.#passedOn.get(key) ?? 0) <= commit) {
        this.#passedOn.set(key, commit)
        fresh?.push(changes[i]!)
      } else fresh ??= changes.slice(0, i)
    }
    return fresh ?? changes
  }
}
