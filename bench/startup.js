// Start-up figures: a CLI command against bare node, and serve until /v1/health answers.
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {signPayload} from '../dist/index.js'
import {BIN, startServe, timeRun} from './processes.js'
import {median} from './stats.js'

const SECRET = 'whsec_bench_verify'
const PAYLOAD = 'fixtures/checks/open.json'

/** Median wall times of `node -e 0` and `tablepay verify` (a valid signature), run alternately `runs` times after one warm-up each. */
export async function verifyStartup(payload, runs) {
  const header = signPayload(payload, SECRET)
  const bare = ['-e', '0']
  const verify = [BIN, 'verify', '--secret', SECRET, '--header', header, '--payload', PAYLOAD, '--tolerance', '3600']
  await timeRun(bare)
  await timeRun(verify)
  const times = {bare: [], verify: []}
  for (let i = 0; i < runs; i++) {
    times.bare.push(await timeRun(bare))
    times.verify.push(await timeRun(verify))
  }
  return {bare: median(times.bare), verify: median(times.verify)}
}

/** Median ms from spawning `tablepay serve` to /v1/health answering, each on a fresh data dir. */
export async function emptyServeStartup(runs) {
  const times = []
  for (let i = 0; i < runs; i++) {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-bench-empty-'))
    try {
      const serve = await startServe(dir)
      times.push(serve.startMs)
      await serve.stop()
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  }
  return median(times)
}

/** The same on an existing data dir (`dir`, stopped cleanly). */
export async function dataServeStartup(dir, runs) {
  const times = []
  for (let i = 0; i < runs; i++) {
    const serve = await startServe(dir)
    times.push(serve.startMs)
    await serve.stop()
  }
  return median(times)
}
