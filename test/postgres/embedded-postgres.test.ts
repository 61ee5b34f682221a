import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {readFile, rm} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {pathToFileURL} from 'node:url'
import pg from 'pg'
import {expect, it} from 'vitest'
import {isAlive} from '../../src/shared/process-alive.js'
import {ROOT} from '../helpers/cli.js'

// started by hand, as a script of one's own does: what ends it must end its postgres and remove its dir too
it.for(['SIGTERM', 'SIGINT'] as const)(
  'a PostgreSQL of scripts/embedded-postgres.js stops with its process on %s',
  async (signal) => {
    const script = pathToFileURL(join(ROOT, 'scripts', 'embedded-postgres.js')).href
    const code =
      `import {startEmbeddedPostgres} from ${JSON.stringify(script)}\n` +
      `const {url} = await startEmbeddedPostgres({load: () => import(${JSON.stringify(import.meta.resolve('embedded-postgres'))}), durable: false})\n` +
      'console.log(url)\n' +
      // kept alive as a script that goes on using it would be
      'setInterval(() => {}, 1 << 30)\n'
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {stdio: ['ignore', 'pipe', 'inherit']})
    const ended = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_, by) => resolve(by)))
    const url = await new Promise<string>((resolve, reject) => {
      let out = ''
      child.stdout.on('data', (chunk: Buffer) => (out += chunk) && out.includes('\n') && resolve(out.trim()))
      void ended.then(() => reject(new Error(`the script ended before its PostgreSQL was ready: ${out}`)))
    })
    const admin = new pg.Client({connectionString: url})
    await admin.connect()
    const {rows} = await admin.query("SELECT current_setting('data_directory') AS data")
    await admin.end()
    const data = rows[0].data as string
    const postgres = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0])
    try {
      child.kill(signal)
      expect(await ended).toBe(signal)
      expect(isAlive(postgres)).toBe(false)
      expect(existsSync(dirname(data))).toBe(false)
    } finally {
      // what a failed stop left
      if (isAlive(postgres)) process.kill(postgres, 'SIGKILL')
      await rm(dirname(data), {recursive: true, force: true})
    }
  },
)
