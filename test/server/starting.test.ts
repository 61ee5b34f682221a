import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {spawnRunning} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'
import {createTestDatabase, onPostgres} from '../helpers/postgres.js'

const STARTS = 20
/** Starts at once: the poller of each competes with the others' starts, as a CI machine's would. */
const AT_ONCE = 4

/** What a poller saw of one `serve` from its spawn on: each answer's status, code and Retry-After. */
interface Seen {
  answers: {status: number; code?: string; retryAfter: string | null}[]
  exitCode: number | null
}

/**
 * Spawns `serve` on a fresh data dir (or, on PostgreSQL, a fresh database) and polls `/v1/health` from the
 * spawn on, as a CI health check does, until it answers 200; then stops it once ready.
 */
async function startPolled(): Promise<Seen> {
  const port = await freePort()
  const root = await mkdtemp(join(tmpdir(), 'tablepay-starting-'))
  const database = onPostgres ? await createTestDatabase() : undefined
  const store = database ? ['--database', database.url] : ['--data', join(root, 'data')]
  const serve = spawnRunning(['serve', '--port', String(port), '--json', ...store])
  let exited = false
  void serve.exited.then(() => (exited = true))
  const answers: Seen['answers'] = []
  try {
    while (!exited && answers.at(-1)?.status !== 200) {
      const answer = await fetch(`http://127.0.0.1:${port}/v1/health`).catch(() => undefined)
      if (!answer) continue
      const body = (await answer.json().catch(() => ({}))) as {error?: {code?: string}}
      answers.push({status: answer.status, code: body.error?.code, retryAfter: answer.headers.get('retry-after')})
    }
    if (exited) return {answers, exitCode: await serve.exited}
    // stopped once it says it is ready, as CI stops it: a signal before then is not what this test is about
    await serve.waitForOutput('"status":"ready"')
    return {answers, exitCode: await serve.stop()}
  } finally {
    if (!exited) await serve.kill('SIGKILL')
    await database?.drop()
    await rm(root, {recursive: true, force: true})
  }
}

it(`a request while serve starts is answered 503 starting, never ends the process (${STARTS} starts)`, async () => {
  const seen: Seen[] = []
  for (let i = 0; i < STARTS; i += AT_ONCE)
    seen.push(...(await Promise.all(Array.from({length: AT_ONCE}, startPolled))))
  for (const {answers, exitCode} of seen) {
    expect(answers.at(-1)?.status).toBe(200)
    expect(exitCode).toBe(0)
    for (const early of answers.slice(0, -1)) expect(early).toEqual({status: 503, code: 'starting', retryAfter: '1'})
  }
})
