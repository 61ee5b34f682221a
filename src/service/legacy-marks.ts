import type {Storage} from './storage.js'

/** How a data dir written before marks had their collection names them: a setting `fan-out:evt_…`, its value the due time. */
const LEGACY_MARK = 'fan-out:'

/**
 * Moves the marks of a data dir written before marks had their own
 * collection (`settings` rows named `fan-out:evt_…`) into `fan_outs`, in
 * their order and in one unit, so a start finishes their fan-outs as it
 * does any other's (docs/storage.md, "Deferred fan-out"). A data dir
 * without them costs a read of its few settings.
 *
 * @example
 * await moveLegacyMarks(storage)
 * for (const {id} of await storage.all('fan_outs')) queue(id)
 */
export async function moveLegacyMarks(storage: Storage): Promise<void> {
  const legacy = (await storage.all('settings')).filter((setting) => setting.id.startsWith(LEGACY_MARK))
  if (legacy.length === 0) return
  await storage.unit(async (tx) => {
    for (const {id, value} of legacy) {
      const eventId = id.slice(LEGACY_MARK.length)
      tx.put('fan_outs', eventId, {id: eventId, account_id: '', due: value})
      tx.delete('settings', id)
    }
  })
}
