import {once} from 'node:events'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {createService} from '../../src/server/service.js'

/**
 * The API over `storage` on a real loopback port, whose dispatcher can be
 * stopped between queuing an attempt and claiming its delivery:
 * `holdNextClaim()` resolves once the next claim is asked for, with the
 * function that lets it go on. `close` stops the server, not the storage.
 *
 * @example
 * const {url, holdNextClaim, close} = await serveWithHeldClaims(store)
 */
export async function serveWithHeldClaims(storage: Parameters<typeof createService>[0]) {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const running = await createService(storage, url, {})
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
    holdNextClaim: () => new Promise<() => void>((resolve) => (hold = resolve)),
    close: async () => {
      await running.close()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
