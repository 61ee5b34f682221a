import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {simulatorControls, type SimulatorControls} from '../../src/simulator-controls.js'
import {ROOT} from '../helpers/cli.js'
import {startTestServer, type TestServer} from '../helpers/simulator.js'

// run on the memory store with its journal and on PostgreSQL (vitest.config.ts): one server for the file,
// every run's ${run} keeps its checks apart
let server: TestServer
let sim: SimulatorControls
beforeAll(async () => {
  server = await startTestServer()
  sim = simulatorControls(`${server.url}/v1`, server.server.accounts)
})
afterAll(() => server.close())

const SHIPPED = readdirSync(join(ROOT, 'fixtures', 'scenarios')).map((file) => file.replace(/\.json$/, ''))

describe('the shipped scenarios', () => {
  test('are the six the docs name', () => {
    expect(SHIPPED.sort()).toEqual([
      'claim-then-pos-void',
      'lost-answer',
      'pay-in-full-with-tip',
      'receiver-down-2h',
      'refund',
      'split-bill',
    ])
  })

  test.each(SHIPPED)('%s runs by name: every step holds', async (name) => {
    const report = await sim.runScenario(name)
    expect(report.steps.filter((step) => !step.ok)).toEqual([])
    expect(report).toMatchObject({scenario: name, ok: true, failed: 0, skipped: 0})
    expect(report.passed).toBe(report.steps.length)
  })
})
