import {type CollectionName, type SettingRecord, settingRecord} from '../domain/records.js'
import {CLOCK_SETTING} from '../webhooks/clock.js'
import type {ServiceContext} from './context.js'
import {retireExpiredSecrets} from './endpoints.js'
import type {Faults} from './faults.js'
import type {Outbox} from './outbox.js'
import type {RequestLog} from './request-log.js'

/** What a reset clears; keys and locations stay so the caller's configuration keeps working. */
const RESET: CollectionName[] = ['checks', 'claims', 'payments', 'feedback', 'idempotency_keys', 'events', 'deliveries']

/** What the service keeps beside the storage (faults in the database on PostgreSQL): a reset, or an account's deletion, clears them too. */
export interface Traffic {
  requests: RequestLog
  faults: Faults
}

/** Simulator controls that the real service does not have: reset, and the scheduler clock's saved offset. */
export class Sim {
  constructor(
    readonly context: ServiceContext,
    readonly outbox: Outbox,
    readonly traffic: Traffic,
  ) {}

  /**
   * Deletes the account's checks and all that followed from them, in one unit of work; says how many of each.
   * It holds the account as a restore does: a push meanwhile comes wholly before it or after it, never a check
   * whose events it deleted (docs/postgres.md, "Snapshots").
   *
   * @example
   * const deleted = await service.sim.reset('acct_demo') // {checks: 3, claims: 1, …}
   */
  async reset(accountId: string): Promise<Record<string, number>> {
    const deleted = await this.outbox.unit({reads: RESET}, async (tx) => {
      await tx.lockAccount(accountId)
      const deleted: Record<string, number> = {}
      for (const name of RESET) deleted[name] = await tx.deleteAll(name, accountId)
      return deleted
    })
    this.traffic.requests.clear(accountId)
    await this.traffic.faults.clear(accountId)
    return deleted
  }

  /** How far the scheduler clock was advanced, in ms, as last saved (docs/api.md "Webhooks", the scheduler clock). */
  async clockOffset(): Promise<number> {
    return (await this.context.storage.get('settings', CLOCK_SETTING))?.value ?? 0
  }

  /** True when other instances may share the storage, and with it the clock (docs/postgres.md). */
  get shared(): boolean {
    return this.context.storage.shared !== undefined
  }

  /**
   * Calls `listener` with each clock offset another instance on the database saves, and `missed` each time this
   * one listens again; with none, never.
   */
  followClock(listener: (offset: number) => void, missed: () => void): () => void {
    const {storage} = this.context
    const {shared} = storage
    if (!shared) return () => {}
    const unsubscribe = storage.subscribe(
      (changes, remote) => {
        if (!remote) return
        for (const [collection, id, record] of changes)
          if (collection === 'settings' && id === CLOCK_SETTING) listener((record as SettingRecord | null)?.value ?? 0)
      },
      ['settings'],
    )
    // a change saved while this instance did not listen was not told to it (docs/postgres.md)
    const unheard = shared.onReconnect(missed)
    return () => {
      unsubscribe()
      unheard()
    }
  }

  /**
   * Runs `change` (an advance, a reset) while no other instance on the database changes the clock: two advances
   * through two instances add up (docs/postgres.md, "The scheduler clock across instances"). Alone, at once.
   */
  clockTurn<T>(change: () => Promise<T>, shared = false): Promise<T> {
    return this.context.storage.shared?.clockTurn(change, shared) ?? change()
  }

  /** Before the clock is put back: what had expired on it stays expired (a rotation's old secret, docs/api.md). */
  retireExpired(clockNow: number): Promise<void> {
    return retireExpiredSecrets(this.context, this.outbox, clockNow)
  }

  /** Resolves once the deliveries of every change answered so far are written: an advance runs their attempts. */
  fannedOut(): Promise<void> {
    return this.outbox.flush()
  }

  /** Saves the clock's offset before the clock moves: after a crash, retries scheduled on it are not in its future. */
  saveClockOffset(offset: number): Promise<void> {
    // as the advance that follows reads the deliveries: every one due by its end
    return this.outbox.unit({reads: ['deliveries']}, async (tx) =>
      tx.put('settings', CLOCK_SETTING, settingRecord(CLOCK_SETTING, offset)),
    )
  }
}
