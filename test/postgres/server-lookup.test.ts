import {realpath} from 'node:fs/promises'
import {afterEach, expect, test} from 'vitest'
import {displayUrl} from '../../src/shared/database-url.js'
import {runCommand, spawnRunning} from '../helpers/cli.js'
import {createTestDatabase} from '../helpers/postgres.js'
import {makeTempDir} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** `tablepay serve --database URL` on a free port, started from `cwd`, registering under `home`; resolves on its ready line. */
async function serve(home: string, database: string, cwd: string) {
  const argv = ['serve', '--json', '--port', '0', '--seed', 'fixtures/seed.json', '--database', database]
  const server = spawnRunning(argv, {TABLEPAY_HOME: home}, {cwd})
  cleanup.push(() => server.stop())
  await server.waitForOutput('\n')
}

test('instances of one sandbox started from one directory are one server to a client there; beside another sandbox, it asks which', async () => {
  // as the processes started there name them (getcwd: symbolic links resolved); the run removes them at its end
  const home = await realpath(await makeTempDir())
  const here = await realpath(await makeTempDir())
  const [one, other] = [await createTestDatabase(), await createTestDatabase()]
  // dropped once the servers on them stopped: the last cleanup made runs first
  cleanup.push(
    () => one.drop(),
    () => other.drop(),
  )
  const client = (args: string[]) => runCommand(args, {env: {TABLEPAY_HOME: home, TABLEPAY_DATA: ''}, cwd: here})
  await Promise.all([serve(home, one.url, here), serve(home, one.url, here)])
  const found = await client(['locations', 'list', '--json'])
  expect([found.code, found.stderr]).toEqual([0, ''])
  await serve(home, other.url, here)
  const asked = await client(['locations', 'list'])
  expect(asked.code).toBe(1)
  expect(asked.stderr).toContain('several_servers')
  const said = asked.stderr.replaceAll(/\s*\n ›\s*/g, ' ')
  expect(said).toContain('3 running tablepay servers were started from')
  const listed = ({url}: {url: string}) => said.split(`database ${displayUrl(url)})`).length - 1
  expect([listed(one), listed(other)]).toEqual([2, 1])
})
