import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'
import {copyFile, link, mkdir, open, readdir, rename, rm, stat} from 'node:fs/promises'
import {join} from 'node:path'
import {crc32} from 'node:zlib'
import {afterEach, expect, it} from 'vitest'
import type {EventRecord} from '../../src/domain/records.js'
import {startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {call, makeTempDir, READ_KEY, TEST_SEED, WRITE_KEY, writeSeed} from '../helpers/simulator.js'
import {testCache} from '../helpers/temp-dirs.js'

const EVENTS = 100_000
/** V8's longest string, in UTF-16 units: a file read whole as one string fails past it. */
const MAX_STRING = 2 ** 29 - 24
/**
 * JSON whitespace inside each record, so the file passes that limit while the records stay small in memory.
 * Few records with much padding keep the parsing short (3 s of CPU; a million records took 9 s); what a
 * million pushes cost is the soak bench's figure (docs/benchmarks.md).
 */
const PAD = ' '.repeat(Math.ceil(MAX_STRING / EVENTS) - 100)

/** Writes events.json the way the store lays it out, one record a line, with its count and checksum. */
async function writeEvents(path: string, seq: number): Promise<void> {
  const handle = await open(path, 'w', 0o600)
  let crc = 0
  await handle.write(`{\n  "seq": ${seq},\n  "records": [\n`)
  for (let start = 0; start < EVENTS; start += 10_000) {
    const lines: string[] = []
    for (let i = start; i < start + 10_000; i++) {
      const event: EventRecord = {
        id: `evt_${i}`,
        object: 'event',
        type: 'check.created',
        created_at: '2026-01-01T00:00:00.000Z',
        data: {object: 'check', id: `chk_${i}`},
        account_id: 'acct_demo',
      }
      lines.push(JSON.stringify(event).replace(',', `,${PAD}`))
    }
    crc = crc32(lines.join(''), crc)
    await handle.write(`${start === 0 ? '' : ',\n'}    ${lines.join(',\n    ')}`)
  }
  await handle.write(`\n  ],\n  "count": ${EVENTS},\n  "crc": ${crc}\n}\n`)
  await handle.close()
}

/**
 * events.json as writeEvents makes it, kept in the temp dir from one run to the next: writing it took 4.5 s
 * of CPU and 15 s on a busy disk. Named for writeEvents' source, so a changed writer writes
 * a new one; the store's own code never makes it, so a change of the store's format cannot leave it stale.
 */
async function cachedEvents(): Promise<string> {
  const key = createHash('sha256').update(`${writeEvents} ${EVENTS} ${PAD.length}`).digest('hex').slice(0, 16)
  const dir = testCache('')
  const path = join(dir, `large-events-${key}.json`)
  if (existsSync(path)) return path
  await mkdir(dir, {recursive: true})
  // an older writer's, over 500 MB: not kept beside the new one
  for (const name of await readdir(dir)) if (/^large-events-\w+\.json$/.test(name)) await rm(join(dir, name))
  // written aside and renamed, so a run beside this one never copies half a file
  const temp = `${path}.${process.pid}.tmp`
  await writeEvents(temp, 0)
  await rename(temp, path)
  return path
}

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

it('a data dir whose events file is larger than the longest string starts and answers', async () => {
  const root = await makeTempDir()
  // over 500 MB: never left behind
  cleanup.push(() => rm(root, {recursive: true, force: true}))
  const dataDir = join(root, 'data')
  const seedFile = await writeSeed(root, TEST_SEED)
  await (await startServer({port: 0, host: '127.0.0.1', dataDir, seedFile})).close()
  const eventsFile = join(dataDir, 'events.json')
  // seq 0: the events hold no change of the journal, which the first start left empty. Linked, not copied:
  // the store never writes a file in place, only a new one renamed over it (docs/storage.md), so the cached
  // file stays as it is
  const cached = await cachedEvents()
  await link(cached, eventsFile).catch(() => copyFile(cached, eventsFile))
  // events.json holding the events themselves is of a version before chunks, which wrote no index of the documents
  await rm(join(dataDir, 'documents.json'))
  expect((await stat(eventsFile)).size).toBeGreaterThan(MAX_STRING)

  const server = await startServer({port: 0, host: '127.0.0.1', dataDir})
  cleanup.push(() => server.close())
  const newest = await call(server.url, 'GET', '/v1/events?limit=1', {key: READ_KEY})
  expect([newest.status, newest.body.data.map((e: {id: string}) => e.id)]).toEqual([200, [`evt_${EVENTS - 1}`]])
  const body = checkWith([['a', 1, 100]])
  const push = await call(server.url, 'PUT', '/v1/checks/external/after-the-events', {key: WRITE_KEY, body})
  expect(push.status).toBe(201)
}, 120_000)
