// The PostgreSQL reference: what one SQL statement per push gives in Node
// (docs/benchmarks.md, "PostgreSQL"). Measured beside `serve --database` on
// the same database server, so that the PostgreSQL store is judged against
// what the database allows, not against the journal.
//
// What it does, per push: the key looked up, the body read, parsed and
// checked, the check rendered, then one statement on a pool of 10
// connections (as `serve --database`'s): `INSERT … ON CONFLICT … DO UPDATE
// … WHERE version <` the pushed one, and the event in the same statement,
// prepared once (a named statement). A stale or unchanged push then reads
// the check. What it leaves out: the request log, locations, endpoints and
// deliveries, notifications to other instances, retention, the rest of the
// API; the check's id is drawn from its external id, and its `created_at`
// is the push's time.
import {createServer} from 'node:http'
import pg from 'pg'
import {id, putCheck, render} from './lean-push.js'

const pool = new pg.Pool({connectionString: process.argv[2], max: 10})

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS reference_checks (account_id text, external_id text, version integer NOT NULL,
    doc json NOT NULL, PRIMARY KEY (account_id, external_id));
  CREATE TABLE IF NOT EXISTS reference_events (id text PRIMARY KEY, account_id text NOT NULL, type text NOT NULL,
    seq bigserial, doc json NOT NULL)`

/** The push: the check written unless it holds this version or a later one, and its event, in one statement. */
const PUSH = {
  name: 'reference_push',
  text: `WITH pushed AS (
      INSERT INTO reference_checks AS c (account_id, external_id, version, doc) VALUES ($1, $2, $3, $4)
      ON CONFLICT (account_id, external_id) DO UPDATE SET version = excluded.version, doc = excluded.doc
        WHERE c.version < excluded.version
      RETURNING (xmax = 0) AS created)
    INSERT INTO reference_events (id, account_id, type, doc)
      SELECT $5, $1, CASE WHEN created THEN 'check.created' ELSE 'check.updated' END,
        json_build_object('id', $5::text, 'object', 'event',
          'type', CASE WHEN created THEN 'check.created' ELSE 'check.updated' END, 'created_at', $6::text,
          'data', $4::json)
      FROM pushed
    RETURNING type`,
}
const READ = {
  name: 'reference_read',
  text: 'SELECT doc FROM reference_checks WHERE account_id = $1 AND external_id = $2',
}

const server = createServer(
  putCheck(async (res, {account, externalId, body}) => {
    const now = new Date().toISOString()
    const text = JSON.stringify({...render(externalId, body, undefined, now), id: `chk_${externalId}`})
    try {
      const {rows} = await pool.query({...PUSH, values: [account, externalId, body.version, text, id('evt_'), now]})
      const answer = (status, result, doc) =>
        res
          .writeHead(status, {'content-type': 'application/json', 'x-tablepay-push-result': result})
          .end(typeof doc === 'string' ? doc : JSON.stringify(doc))
      if (rows.length > 0) return answer(rows[0].type === 'check.created' ? 201 : 200, 'changed', text)
      const stored = await pool.query({...READ, values: [account, externalId]})
      answer(200, 'unchanged', stored.rows[0].doc)
    } catch (error) {
      res.writeHead(500).end(String(error))
    }
  }),
)

await pool.query(SCHEMA)
server.listen(0, '127.0.0.1', () =>
  process.send({port: /** @type {import('node:net').AddressInfo} */ (server.address()).port}),
)
process.on('disconnect', () => void pool.end().finally(() => process.exit(0)))
