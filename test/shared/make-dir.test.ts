import {mkdtemp, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {makeDir} from '../../src/shared/make-dir.js'

describe('makeDir', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tablepay-make-dir-'))
  })
  afterAll(() => rm(dir, {recursive: true, force: true}))

  it('makes every missing parent with the mode, and takes a dir that is already there', async () => {
    const deep = join(dir, 'a', 'b', 'c')
    await makeDir(deep, 0o700)
    await makeDir(deep, 0o700)
    expect((await stat(deep)).mode & 0o777).toBe(0o700)
    expect((await stat(join(dir, 'a'))).mode & 0o777).toBe(0o700)
  })

  // Node's mkdir(…, {recursive: true}) never settles there: the test's timeout bounds a hang
  it(
    'rejects with ENOENT under /proc, where a child stays missing once its parent exists',
    {timeout: 5_000},
    async () => {
      await expect(makeDir('/proc/tablepay-x/y')).rejects.toMatchObject({code: 'ENOENT'})
    },
  )

  it('rejects with a file in the way, itself or as a parent', async () => {
    const file = join(dir, 'file')
    await writeFile(file, '')
    await expect(makeDir(file)).rejects.toMatchObject({code: 'EEXIST'})
    await expect(makeDir(join(file, 'x', 'y'))).rejects.toMatchObject({code: 'ENOTDIR'})
  })
})
