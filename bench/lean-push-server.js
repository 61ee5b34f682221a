// The reference: the least a durable, validating push that makes an event
// can do in Node, without tablepay's machinery (docs/benchmarks.md, "How far
// a push can go in Node"). Measured beside the bare server and tablepay so
// that the push's targets are read against what Node can reach, not against
// a guess. It takes the bench's changing pushes only.
//
// What it does, per push: the key looked up, a request id drawn, the body
// read, parsed and checked (the fields, their types, unknown fields, the
// totals), the version ordered (created, updated, unchanged, stale), the
// check resource rendered as JSON, an event envelope around it, both written
// as one journal line with its CRC-32 and the answer sent only once the
// line is written (group commit: one write for every push waiting), the
// event kept (as its text, the newest 100,000) and a request log entry kept
// (the newest 1,000). What it leaves out: compaction (its journal file
// is written over from its start past 64 MiB, as if a compaction had
// dropped it), claims and payments, deliveries and the dispatcher, the live
// streams, faults and rate limits, error bodies, h3.
import {openSync, unlinkSync, write} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {crc32} from 'node:zlib'
import {id, putCheck, render} from './lean-push.js'

const EVENTS_KEPT = 100_000
const LOG_KEPT = 1000

/** @type {Map<string, {record: any, text: string}>} */
const checks = new Map()
const events = new Array(EVENTS_KEPT)
const log = new Array(LOG_KEPT)
let eventCount = 0
let logCount = 0

const JOURNAL_MAX = 64 * 1024 * 1024
const journalPath = join(tmpdir(), `lean-push-${process.pid}.ndjson`)
const journal = openSync(journalPath, 'w')
let offset = 0
let lines = []
let waiting = []
let writing = false

/** Writes every line waiting in one write, then answers their pushes; lines that arrive meanwhile wait for the next. */
function flush() {
  if (writing || lines.length === 0) return
  writing = true
  const text = lines.join('')
  const done = waiting
  lines = []
  waiting = []
  const at = offset > JOURNAL_MAX ? 0 : offset
  offset = at + Buffer.byteLength(text)
  write(journal, text, at, 'utf8', (error) => {
    if (error) throw error
    writing = false
    for (const answer of done) answer()
    flush()
  })
}

function append(line, answer) {
  lines.push(line)
  waiting.push(answer)
  if (lines.length === 1) setImmediate(flush)
}

const server = createServer(
  putCheck((res, {account, externalId, path, text, body, started}) => {
    const requestId = id('req_')
    const old = checks.get(`${account}/${externalId}`)
    const now = new Date().toISOString()
    const answer = (status, result, check) => {
      res
        .writeHead(status, {
          'content-type': 'application/json',
          'x-request-id': requestId,
          'x-tablepay-push-result': result,
        })
        .end(check.text)
      log[logCount++ % LOG_KEPT] = {
        id: requestId,
        method: 'PUT',
        path,
        status,
        duration_ms: performance.now() - started,
        created_at: now,
        push_result: result,
        check_id: check.record.id,
        request_body: text,
      }
    }
    if (old && body.version <= old.record.version) {
      answer(200, body.version < old.record.version ? 'stale' : 'unchanged', old)
      return
    }
    const record = render(externalId, body, old, now)
    const check = {record, text: JSON.stringify(record)}
    const type = old ? 'check.updated' : 'check.created'
    const event = `{"id":"${id('evt_')}","object":"event","type":"${type}","created_at":"${now}","data":${check.text}}`
    events[eventCount++ % EVENTS_KEPT] = event
    checks.set(`${account}/${externalId}`, check)
    const line = `{"check":${check.text},"event":${event}`
    append(`${line},"crc":${crc32(line)}}\n`, () => answer(old ? 200 : 201, old ? 'updated' : 'created', check))
  }),
)

server.listen(0, '127.0.0.1', () =>
  process.send({port: /** @type {import('node:net').AddressInfo} */ (server.address()).port}),
)
process.on('disconnect', () => process.exit(0))
process.on('exit', () => unlinkSync(journalPath))
