import {type ChildProcess, fork} from 'node:child_process'
import {writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {makeTempDir} from '../helpers/simulator.js'

// dist/ is built by test/helpers/build-setup.ts when older than src/: the racers are plain node processes
const RACER = new URL('./lock-racer.js', import.meta.url)

type Message =
  {type: 'ready' | 'released'} | {type: 'seam'; path: string} | {type: 'answer'; ok: boolean; message?: string}

let racers: ChildProcess[] = []

/** The racer's next message of `type`. */
function next<T extends Message['type']>(racer: ChildProcess, type: T): Promise<Extract<Message, {type: T}>> {
  return new Promise((resolve) => {
    const listener = (message: Message) => {
      if (message.type !== type) return
      racer.off('message', listener)
      resolve(message as Extract<Message, {type: T}>)
    }
    racer.on('message', listener)
  })
}

beforeAll(async () => {
  racers = [fork(RACER), fork(RACER)]
  await Promise.all(racers.map((racer) => next(racer, 'ready')))
})
afterAll(() => {
  for (const racer of racers) racer.kill()
})

/** What the dir holds before the race: a killed server's lock (old or current name, or torn), or nothing. */
const STALE = [
  ['server.lock', JSON.stringify({pid: 4194305, started_at: new Date().toISOString()})],
  ['server.000000000007.lock', JSON.stringify({pid: 4194305, started_at: new Date().toISOString()})],
  ['server.lock', ''],
  undefined,
] as const

/** Which racer creates its lock first once both have looked: one, the other, or both at once. */
const ORDERS = [[0], [1], [0, 1]] as const

it('of two processes taking one data dir at the same instant, exactly one gets it, over a stale lock or none', async () => {
  const outcomes: string[] = []
  for (const stale of STALE) {
    for (const first of ORDERS) {
      const dir = await makeTempDir()
      if (stale) await writeFile(join(dir, stale[0]), stale[1])
      const answers = racers.map((racer) => next(racer, 'answer'))
      const seams = racers.map((racer) => next(racer, 'seam'))
      for (const racer of racers) racer.send({type: 'lock', dir})
      // both have looked at the dir and chosen the same lock to create, and neither has created it yet
      const paths = (await Promise.all(seams)).map((seam) => seam.path)
      expect(paths[0]).toBe(paths[1])
      for (const i of first) racers[i]!.send({type: 'go'})
      if (first.length === 1) {
        expect(await answers[first[0]]).toEqual({type: 'answer', ok: true})
        racers[1 - first[0]]!.send({type: 'go'})
      }
      const settled = await Promise.all(answers)
      const losers = settled.filter((answer) => !answer.ok)
      const one = losers.length === 1 && /in use by another tablepay server/.test(losers[0]!.message!)
      outcomes.push(one ? 'one' : `${stale?.[0] ?? 'none'} ${first.join(',')} ${JSON.stringify(settled)}`)
      await Promise.all(racers.map((racer) => (racer.send({type: 'release'}), next(racer, 'released'))))
    }
  }
  expect(outcomes.filter((o) => o !== 'one')).toEqual([])
})
