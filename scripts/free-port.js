// A free loopback port, for the tests, the bench and the test PostgreSQL.
import {createServer} from 'node:net'

/**
 * A port free now: bound, then released. For what needs a port number
 * before it starts (a restart on the same port, a tool that takes no 0) or
 * a port nothing listens on.
 *
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const {port} = /** @type {import('node:net').AddressInfo} */ (server.address())
      server.close(() => resolve(port))
    })
  })
}
