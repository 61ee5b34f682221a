import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {TablepayClient} from '../../../src/client/client.js'
import type {ScratchAccount} from '../../../src/domain/schemas.js'
import {replayScenario} from '../../../src/cli/replay/run.js'
import {ROOT} from '../../helpers/cli.js'
import {startTestServer, type TestServer, WRITE_KEY} from '../../helpers/simulator.js'

let sim: TestServer
beforeAll(async () => {
  sim = await startTestServer({memory: true})
})
afterAll(() => sim.close())

/**
 * A client of the server whose replay is stopped (Ctrl+C) right after it asks for its `nth` scratch account,
 * before the answer: the server makes that account all the same. Resolves each account asked for.
 */
function stoppedWhileMaking(nth: number) {
  const stop = new AbortController()
  const client = new TablepayClient({url: sim.url, apiKey: WRITE_KEY})
  const asked: Promise<ScratchAccount>[] = []
  const make = client.createScratchAccount.bind(client)
  client.createScratchAccount = () => {
    const making = make()
    asked.push(making)
    if (asked.length === nth) stop.abort()
    return making
  }
  return {client, signal: stop.signal, asked}
}

/** Whether the scratch account is still there: its key still opens it. */
const exists = async (account: ScratchAccount) =>
  (await sim.api('GET', '/v1/locations', {key: account.api_keys[0]!.key})).status === 200

describe('checks replay stopped while it makes its scratch accounts', () => {
  const scenario = async () => JSON.parse(await readFile(join(ROOT, 'fixtures/replays/dinner-service.json'), 'utf8'))

  it('removes the account the server made after the stop, and says they were removed', async () => {
    for (const nth of [1, 2]) {
      const {client, signal, asked} = stoppedWhileMaking(nth)
      const replay = replayScenario(client, await scenario(), {seed: 1, duplicates: false, keep: false, signal})
      await expect(replay).rejects.toMatchObject({
        code: 'interrupted',
        message: 'The replay was interrupted; its scratch accounts were removed.',
      })
      const made = await Promise.all(asked)
      expect(made).toHaveLength(nth)
      expect(await Promise.all(made.map(exists))).toEqual(made.map(() => false))
    }
  })

  it('with keep, keeps them and names each with its key', async () => {
    const {client, signal, asked} = stoppedWhileMaking(2)
    const replay = replayScenario(client, await scenario(), {seed: 1, duplicates: false, keep: true, signal})
    const error = await replay.catch((caught: Error) => caught)
    const made = await Promise.all(asked)
    expect(error).toMatchObject({
      code: 'interrupted',
      message: `The replay was interrupted; its scratch accounts were kept: ${made[0]!.id} (key ${made[0]!.api_keys[0]!.key}) and ${made[1]!.id} (key ${made[1]!.api_keys[0]!.key}).`,
    })
    expect(await Promise.all(made.map(exists))).toEqual([true, true])
    for (const account of made) await sim.api('DELETE', `/v1/sim/accounts/${account.id}`)
  })
})
