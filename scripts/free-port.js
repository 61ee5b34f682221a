// A free loopback port, for the tests, the bench and the test PostgreSQL.
import {createServer} from 'node:net'

/**
 * Ports below every system's range of ephemeral ports (Linux's starts at 32768, macOS's and Windows' at
 * 49152): a port handed out here is never the one a `listen(0)` or an outgoing connection takes while the
 * caller has not taken it yet, as a receiver's in a test running beside.
 */
const FIRST = 20_000
const LAST = 32_767

/** Binds `port` on loopback and releases it: resolves whether it was free. */
function isFree(port) {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/**
 * A port free now: bound, then released. For what needs a port number
 * before it starts (a restart on the same port, a tool that takes no 0) or
 * a port nothing listens on.
 *
 * @returns {Promise<number>}
 */
export async function freePort() {
  for (let tries = 0; tries < 100; tries++) {
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST + 1))
    if (await isFree(port)) return port
  }
  throw new Error(`no free port between ${FIRST} and ${LAST} after 100 tries`)
}
