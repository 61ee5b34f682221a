import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {mkdir, readFile, rm} from 'node:fs/promises'
import {afterEach, expect, it} from 'vitest'
import {lockDataDir} from '../../src/store/lock.js'
import {makeTempDir} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

// dist/ is built by test/helpers/build-setup.ts when older than src/: the holder is a plain node process
const LOCK = new URL('../../dist/store/lock.js', import.meta.url).href

it("takes over the lock of a server killed and not yet reaped (a zombie), as a slow container's init leaves it", async () => {
  const dir = await makeTempDir()
  // the holder runs under a shell that becomes `sleep`: once killed it stays a zombie, as nobody reaps it
  const holder = `import {lockDataDir} from '${LOCK}'; await lockDataDir(process.argv[1]); console.log(process.pid); setInterval(() => {}, 1000)`
  const parent = spawn('sh', ['-c', `node --input-type=module -e "$0" "$1" & exec sleep 60`, holder, dir])
  cleanup.push(async () => parent.kill('SIGKILL'))
  const [line] = (await once(parent.stdout, 'data')) as [Buffer]
  const pid = Number(String(line).trim())
  await expect(lockDataDir(dir)).rejects.toThrow(`in use by another tablepay server (pid ${pid})`)

  process.kill(pid, 'SIGKILL')
  const state = async () => (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]![0]
  await expect.poll(state).toBe('Z')
  const release = await lockDataDir(dir)
  await release()
})

it("a server's stop leaves alone the lock another took of a dir made again at its path", async () => {
  const dir = await makeTempDir()
  const release = await lockDataDir(dir)
  await rm(dir, {recursive: true, force: true})
  await mkdir(dir)
  // another server locks the new dir: the first generation again, the name of the lock that went with the old one
  const holder = `import {lockDataDir} from '${LOCK}'; await lockDataDir(process.argv[1]); console.log(process.pid); setInterval(() => {}, 1000)`
  const other = spawn(process.execPath, ['--input-type=module', '-e', holder, dir])
  cleanup.push(async () => other.kill('SIGKILL'))
  const [line] = (await once(other.stdout, 'data')) as [Buffer]
  await release()
  await expect(lockDataDir(dir)).rejects.toThrow(`in use by another tablepay server (pid ${Number(String(line))})`)
})

it("a stop leaves alone the lock this process took again of a dir made again at its path, the same name's", async () => {
  const dir = await makeTempDir()
  const first = await lockDataDir(dir)
  await rm(dir, {recursive: true, force: true})
  await mkdir(dir)
  const second = await lockDataDir(dir)
  await first()
  await expect(lockDataDir(dir)).rejects.toThrow(`in use by another tablepay server (pid ${process.pid})`)
  await second()
  await (
    await lockDataDir(dir)
  )()
})
