import {connect, createServer, type Server, type Socket} from 'node:net'
import {freePort} from './ports.js'
import {createTestDatabase, type TestDatabase} from './postgres.js'

/**
 * A TCP relay to the run's PostgreSQL on `port`: cutting it is what a lost
 * network does to every connection through it, while the database itself
 * goes on. `tap`, when given, is called for each connection and then sees
 * every chunk its client sends (test/helpers/wire.ts reads them). Through
 * the `hold` it is given, a test keeps what the database answers on that
 * connection from its client until a promise settles: the database has done
 * the work, and the client has not heard.
 */
export function relay(port: number, target: URL, tap?: Tap) {
  const sockets = new Set<Socket>()
  const clients = new Set<Socket>()
  /** Each open connection's two sockets: the client's and the database's. */
  const pairs = new Map<Socket, Socket>()
  let server: Server | undefined
  let silent = false
  let opened = 0
  let abandoned = 0
  return {
    async open() {
      server = createServer((client) => {
        opened++
        clients.add(client)
        client.on('close', () => clients.delete(client))
        client.on('error', () => {})
        // a dead network: the connection opens, and nothing answers; what it sends is read, so that its end is seen
        if (silent)
          return void client.resume().on('end', () => {
            abandoned++
            client.destroy()
          })
        const upstream = connect(Number(target.port), target.hostname)
        pairs.set(client, upstream)
        client.on('close', () => pairs.delete(client))
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on('close', () => sockets.delete(socket))
          socket.on('error', () => {})
        }
        if (tap)
          client.on(
            'data',
            tap((until) => {
              upstream.unpipe(client)
              void until.then(() => upstream.pipe(client))
            }),
          )
        client.pipe(upstream).pipe(client)
      })
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve))
    },
    async cut() {
      const closed = new Promise((resolve) => server!.close(resolve))
      for (const socket of sockets) socket.destroy()
      await closed
    },
    /**
     * Ends each connection on its client's side only: the database keeps the sessions open, as it does when
     * the network between them drops (it sees them end only when its keepalives go unanswered).
     */
    drop() {
      for (const client of clients) {
        client.unpipe()
        client.destroy()
      }
    },
    /** From now on a dead network for new connections: they open, and nothing answers. Those open go on. */
    silence() {
      silent = true
    },
    /** New connections reach the database again. */
    speak() {
      silent = false
    },
    /**
     * A database that stops answering while its connections stay up, as one whose processes are stopped
     * (`kill -STOP`) or behind a path that stops delivering: nothing more passes on the connections open,
     * either way, and they end on neither side; new ones open, and nothing answers (`silence`).
     */
    freeze() {
      silent = true
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream).pause()
        upstream.unpipe(client).pause()
      }
    },
    /** What the connections open held since `freeze` passes, and new connections reach the database again. */
    thaw() {
      silent = false
      for (const [client, upstream] of pairs) client.pipe(upstream).pipe(client)
    },
    /** How many connections of clients are open. */
    get clients(): number {
      return clients.size
    },
    /** How many connections clients have opened so far. */
    get opened(): number {
      return opened
    },
    /** How many connections that heard nothing their clients have ended so far: each gave up waiting for an answer. */
    get abandoned(): number {
      return abandoned
    },
  }
}

/**
 * Called for each connection of a relay: what it returns sees each chunk the client sends, and `hold(until)`
 * keeps the database's answers on that connection from the client until `until` settles (`relay`).
 */
export type Tap = (hold: (until: Promise<void>) => void) => (chunk: Buffer) => void

/**
 * A tap for `relay` that picks the first connection whose client sends what `pick` matches.
 * `hold()` keeps the database's answers on that connection from its client until `release()`,
 * at once when `atOnce`; `holding` resolves once they are held.
 *
 * @example
 * const listening = holdOne((sent) => sent.includes('LISTEN'))
 * const {url} = await databaseBehindRelay(listening.tap)
 */
export function holdOne(pick: (sent: string) => boolean, atOnce = false) {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let held!: () => void
  const holding = new Promise<void>((resolve) => (held = resolve))
  let picked: ((until: Promise<void>) => void) | undefined
  const hold = () => {
    picked!(released)
    held()
  }
  const tap: Tap = (holdThis) => (chunk) => {
    if (picked || !pick(chunk.toString('latin1'))) return
    picked = holdThis
    if (atOnce) hold()
  }
  return {tap, hold, release, holding}
}

/**
 * A new test database (test/helpers/postgres.ts), or `db` when given, and an
 * open relay to it: `url` reaches the database through `link`, which the test
 * cuts and opens.
 *
 * @example
 * const {db, link, url} = await databaseBehindRelay()
 */
export async function databaseBehindRelay(tap?: Tap, given?: TestDatabase) {
  const db = given ?? (await createTestDatabase())
  const port = await freePort()
  const link = relay(port, new URL(db.url), tap)
  await link.open()
  const url = new URL(db.url)
  url.port = String(port)
  return {db, link, url: url.toString()}
}
