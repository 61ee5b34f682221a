import {execFile, fork} from 'node:child_process'
import {once} from 'node:events'
import {readdir, stat} from 'node:fs/promises'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {expect, it, onTestFinished} from 'vitest'
import {Store} from '../../src/store/store.js'
import {makeTempDir} from '../helpers/simulator.js'

const FILLER = new URL('./journal-filler.js', import.meta.url)

/** Runs the filler in `mode` on `dir` to its end; with `beforeGo`, what to do to it once it is ready. */
async function filler(mode: 'fill' | 'commit', dir: string, beforeGo?: (pid: number) => Promise<void>) {
  const child = fork(FILLER, [mode, dir], {stdio: ['ignore', 'ignore', 'pipe', 'ipc']})
  onTestFinished(() => void child.kill('SIGKILL'))
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk))
  const exited = once(child, 'exit')
  let outcome: unknown
  if (beforeGo) {
    const died = exited.then(() => Promise.reject(new Error(`the filler ended before it was ready:\n${stderr}`)))
    await Promise.race([once(child, 'message'), died])
    await beforeGo(child.pid!)
    child.send('go')
    ;[outcome] = await once(child, 'message')
  }
  await exited
  return {outcome, stderr}
}

it('a compaction writes no document ahead of the journal: a line the full disk refused leaves no hole for a later start', async () => {
  const dir = await makeTempDir('tablepay-compaction-')
  // a file size limit just past the journal's end refuses its next line, as a disk that fills does; the
  // documents, which hold the one check, stay under it
  const {outcome, stderr} = await filler('fill', dir, async (pid) => {
    const [journal] = (await readdir(dir)).filter((name) => name.startsWith('journal.'))
    const limit = (await stat(join(dir, journal!))).size + 1000
    await promisify(execFile)('prlimit', [`--pid=${pid}`, `--fsize=${limit}`])
  })
  expect(outcome).toEqual({written: 'rejected', compacted: 'rejected'})
  // the remedy for the limit that refused it, not for a full disk
  expect(stderr).toContain('(EFBIG: file too large')
  expect(stderr).toContain('To go on: raise the largest file size its process may write (`ulimit -f`), then restart')
  // a start after that kill, then one after a kill of the next server, read every line the journal holds
  await filler('commit', dir)
  const store = await Store.open({dir})
  onTestFinished(() => store.close())
  expect(store.tables.checks.get('chk_0')?.version).toBe(300)
  expect(store.tables.checks.get('chk_after')).toBeDefined()
})
