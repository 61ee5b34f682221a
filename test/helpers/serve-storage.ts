import {once} from 'node:events'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {createService, type ServiceOptions} from '../../src/server/service.js'

/**
 * The API over `storage` (a store or a storage) on a real loopback port, as
 * `serve` runs it, with the running service at hand. `holdNextClaim()`
 * stops the dispatcher between queuing its next attempt and claiming the
 * delivery: it resolves once that claim is asked for, with the function that
 * lets it go on. `close` stops the server, not the storage.
 *
 * @example
 * const {url, running, holdNextClaim, close} = await serveStorage(store)
 */
export async function serveStorage(storage: Parameters<typeof createService>[0], options: ServiceOptions = {}) {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const running = await createService(storage, url, options)
  server.on('request', running.listener)
  // the dispatcher asks the service for each delivery as it starts an attempt (DeliveryLedger in webhooks/dispatcher.ts)
  const ledger = running.service.deliveries
  const claim = ledger.claim.bind(ledger)
  let hold: ((release: () => void) => void) | undefined
  ledger.claim = async (...args) => {
    const reached = hold
    hold = undefined
    if (reached) await new Promise<void>((release) => reached(release))
    return claim(...args)
  }
  return {
    url,
    running,
    holdNextClaim: () => new Promise<() => void>((resolve) => (hold = resolve)),
    close: async () => {
      await running.close()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
