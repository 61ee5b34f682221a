import {mkdtemp, open, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {crc32} from 'node:zlib'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {FileOut} from '../../src/store/file-out.js'

describe('FileOut', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tablepay-file-out-'))
  })
  afterEach(() => rm(dir, {recursive: true, force: true}))

  /** Adds `parts` (`[part, counted]`), flushing after those marked, and resolves with the file and the FileOut. */
  async function written(parts: [string | Buffer, boolean, 'flush'?][]) {
    const path = join(dir, 'out.json')
    const handle = await open(path, 'w')
    const out = new FileOut(handle)
    for (const [part, counted, flush] of parts) {
      out.add(part, counted)
      if (flush) await out.flush()
    }
    await out.flush()
    await handle.close()
    return {file: await readFile(path), out}
  }

  it('writes texts and bytes in the order added, counting the CRC-32 of the counted ones joined', async () => {
    const event = Buffer.from('{"id":"evt_1","note":"é"}')
    const {file, out} = await written([
      ['[\n', false],
      [event, true],
      [',\n', false, 'flush'],
      ['{"id":"evt_2","note":"日本 🍣"}', true],
      ['\n]', false],
    ])
    expect(file.toString()).toBe('[\n{"id":"evt_1","note":"é"},\n{"id":"evt_2","note":"日本 🍣"}\n]')
    expect(out.crc).toBe(crc32('{"id":"evt_2","note":"日本 🍣"}', crc32(event)))
    expect(out.bytes).toBe(file.length)
    expect(out.pending).toBe(0)
  })

  it('grows past the buffer it began with, and writes a text longer than it whole, multibyte characters and all', async () => {
    const small = 'x'.repeat(700 * 1024)
    // over a megabyte of characters, each three bytes of UTF-8
    const long = '€'.repeat(1.5 * 1024 * 1024)
    const {file, out} = await written([
      [small, true],
      [long, true],
      [Buffer.from(small), true],
    ])
    expect(file.length).toBe(small.length * 2 + Buffer.byteLength(long))
    expect(file.toString()).toBe(small + long + small)
    expect(out.crc).toBe(crc32(file))
  })
})
