import {type ChildProcess, fork} from 'node:child_process'
import {writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {makeTempDir} from '../helpers/simulator.js'

// needs dist/ (npx tsc): the racers are plain node processes
const RACER = new URL('./lock-racer.js', import.meta.url)

type Answer = {ok: boolean; message?: string}

let racers: ChildProcess[] = []

function ask(racer: ChildProcess, message: object): Promise<Answer> {
  return new Promise((resolve) => {
    racer.once('message', (answer) => resolve(answer as Answer))
    racer.send(message)
  })
}

beforeAll(async () => {
  racers = [fork(RACER), fork(RACER)]
  await Promise.all(racers.map((racer) => new Promise((resolve) => racer.once('message', resolve))))
})
afterAll(() => {
  for (const racer of racers) racer.kill()
})

/** What each trial leaves in the dir before the race: a killed server's lock (old or current name), or nothing. */
const STALE = [
  ['server.lock', JSON.stringify({pid: 4194305, started_at: new Date().toISOString()})],
  ['server.000000000007.lock', JSON.stringify({pid: 4194305, started_at: new Date().toISOString()})],
  ['server.lock', ''],
] as const

it('of two processes taking one data dir at the same instant, exactly one gets it, over a stale lock or none', async () => {
  const outcomes: string[] = []
  for (let trial = 0; trial < 240; trial++) {
    const dir = await makeTempDir()
    // half the trials race over a stale lock, half over an empty dir
    const stale = trial % 2 === 0 ? STALE[(trial / 2) % STALE.length] : undefined
    if (stale) await writeFile(join(dir, stale[0]), stale[1])
    const at = performance.timeOrigin + performance.now() + 10
    const answers = await Promise.all(racers.map((racer) => ask(racer, {type: 'lock', dir, at})))
    const losers = answers.filter((a) => !a.ok)
    const one = losers.length === 1 && /in use by another tablepay server/.test(losers[0]!.message!)
    outcomes.push(one ? 'one' : `${trial} ${JSON.stringify(answers)}`)
    await Promise.all(racers.map((racer) => ask(racer, {type: 'release'})))
  }
  expect(outcomes.filter((o) => o !== 'one')).toEqual([])
}, 120_000)
