import {once} from 'node:events'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {createService, type ServiceOptions} from '../../src/server/service.js'

/**
 * The API over `storage` (a store or a storage) on a real loopback port, as
 * `serve` runs it, with the running service at hand. `holdNextClaim()`
 * stops the dispatcher between queuing its next attempt and claiming the
 * delivery: it resolves once that claim is asked for, with the function that
 * lets it go on; `wrapNextClaim` lets a test hold it before or after it is
 * made. `close` stops the server, not the storage.
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
  // the dispatcher asks the service for each delivery as it starts an attempt (DeliveryLedger in webhooks/dispatcher-service.ts)
  const ledger = running.service.deliveries
  type Claim = ReturnType<typeof ledger.claim>
  const claim = ledger.claim.bind(ledger)
  let wrap: ((claim: () => Claim) => Claim) | undefined
  ledger.claim = (...args) => {
    const around = wrap
    wrap = undefined
    return around ? around(() => claim(...args)) : claim(...args)
  }
  /** The next claim runs inside `around`, which makes it (`claim()`) when it sees fit, and answers for it. */
  const wrapNextClaim = (around: (claim: () => Claim) => Claim) => (wrap = around)
  return {
    url,
    running,
    wrapNextClaim,
    holdNextClaim: () =>
      new Promise<() => void>((resolve) =>
        wrapNextClaim(async (claim) => {
          await new Promise<void>((release) => resolve(release))
          return claim()
        }),
      ),
    close: async () => {
      await running.close()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
