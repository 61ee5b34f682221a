import pg from 'pg'
import {afterEach, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {type CliServer, startCliServer} from '../helpers/cli.js'
import {startReceiver} from '../helpers/receiver.js'
import {call} from '../helpers/simulator.js'
import {type StopMode, startStoppablePostgres} from './stoppable-postgres.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** Endpoints the pushes fan out to: enough for a push to keep the dispatchers' connections busy too. */
const ENDPOINTS = 10

/** Pushes each instance has out at once, all through the stops and starts. */
const PUSHERS = 4

it('two instances outlive a fast, a smart and a crashed stop of PostgreSQL under push load, answer 200 within 10 s of each start, and lose no acknowledged push', async () => {
  const postgres = await startStoppablePostgres()
  cleanup.push(() => postgres.remove())
  const receiver = await startReceiver(() => 200)
  cleanup.push(() => receiver.close())
  const instances: CliServer[] = []
  for (let i = 0; i < 2; i++) {
    const instance = await startCliServer(['--database', postgres.url, '--seed', 'fixtures/seed.json'])
    cleanup.push(() => instance.kill('SIGKILL'))
    instances.push(instance)
  }
  const bases = instances.map((instance) => instance.url.replace(/\/v1$/, ''))
  let died: string | undefined
  for (const [i, instance] of instances.entries())
    void instance.exited.then((code) => (died ??= `instance ${i} exited (${code}):\n${instance.stderr()}`))
  for (let i = 0; i < ENDPOINTS; i++) {
    const endpoint = await call(bases[0]!, 'POST', '/v1/webhook-endpoints', {
      body: {url: receiver.url, event_types: ['check.created']},
    })
    expect(endpoint.status).toBe(201)
  }

  // every push makes a new check: one answered 2xx must be there at the end, whatever happened meanwhile
  const acknowledged: string[] = []
  const acknowledgedBy = bases.map(() => 0)
  const unexpected: string[] = []
  let pushing = true
  let n = 0
  const pusher = async (instance: number) => {
    while (pushing) {
      const id = `load-${n++}`
      const body = checkWith([['steak', 1, 1000]])
      const answer = await call(bases[instance]!, 'PUT', `/v1/checks/external/${id}`, {body}).catch((error: Error) => ({
        status: 0,
        text: error.message,
      }))
      if (answer.status >= 200 && answer.status < 300) {
        acknowledged.push(id)
        acknowledgedBy[instance]!++
      } else {
        // the database out of reach is a 503 storage_unavailable, and nothing else
        if (answer.status !== 503 || !answer.text.includes('storage_unavailable'))
          unexpected.push(`${answer.status} ${answer.text}`)
        // a pusher pauses after a refusal, as a POS would: spinning on 503s cost a fifth of the test's CPU
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    }
  }
  const load = bases.flatMap((_, instance) => Array.from({length: PUSHERS}, () => pusher(instance)))
  cleanup.push(async () => {
    pushing = false
    await Promise.all(load)
  })

  // an instance that died says how, rather than a refused connection
  const answers = async () =>
    died ?? (await Promise.all(bases.map((base) => call(base, 'GET', '/v1/locations').then((answer) => answer.status))))
  // pushes go through on both instances: before each stop, the database is busy with them, and after the last
  // start it takes them again
  const pushesGoThrough = async () => {
    const before = [...acknowledgedBy]
    await expect
      .poll(() => acknowledgedBy.every((count, i) => count >= before[i]! + 10), {timeout: 10_000, interval: 20})
      .toBe(true)
  }
  for (const mode of ['fast', 'smart', 'crash'] satisfies StopMode[]) {
    await pushesGoThrough()
    await postgres.stop(mode)
    await postgres.start()
    await expect.poll(answers, {timeout: 10_000, interval: 100}).toEqual([200, 200])
  }
  await pushesGoThrough()
  pushing = false
  await Promise.all(load)

  expect(unexpected).toEqual([])
  expect(died).toBeUndefined()
  // each says what it could not do while the database was away, in a line: a stack is what a bug prints
  for (const instance of instances) expect(instance.stderr()).not.toMatch(/\n\s+at /)
  const stored = new pg.Client({connectionString: postgres.url})
  await stored.connect()
  const {rows} = await stored.query<{external_id: string}>('SELECT external_id FROM checks')
  await stored.end()
  const kept = new Set(rows.map((row) => row.external_id))
  expect(acknowledged.filter((id) => !kept.has(id))).toEqual([])
})
