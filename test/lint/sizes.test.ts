import {readdir, readFile} from 'node:fs/promises'
import {join, relative} from 'node:path'
import {expect, test} from 'vitest'
import {ROOT} from '../helpers/cli.js'

// The sizes CONTRIBUTING.md ("Style") holds the code and docs to: past them a file has
// grown a second concern, or a doc a diary.
const LIMITS: [path: string, lines: number][] = [
  ['src/webhooks/dispatcher.ts', 250],
  ['bench/run.js', 300],
  ['docs/benchmarks.md', 400],
]
const SRC_FILE_LIMIT = 450
const DOC_LIMIT = 1000

const lines = async (path: string) => (await readFile(join(ROOT, path), 'utf8')).split('\n').length - 1

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, {withFileTypes: true})
  const nested = await Promise.all(
    entries.map((entry) => (entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : [join(dir, entry.name)])),
  )
  return nested.flat().filter((path) => path.endsWith('.ts'))
}

test('the dispatcher, the bench runner and the benchmarks page stay within their sizes', async () => {
  const over = []
  for (const [path, limit] of LIMITS) if ((await lines(path)) > limit) over.push(`${path} > ${limit}`)
  expect(over).toEqual([])
})

test(`no file in src/ is over ${SRC_FILE_LIMIT} lines`, async () => {
  const over = []
  for (const file of await sourceFiles(join(ROOT, 'src'))) {
    const path = relative(ROOT, file)
    if ((await lines(path)) > SRC_FILE_LIMIT) over.push(path)
  }
  expect(over).toEqual([])
})

test(`no doc (the README, docs/) is over ${DOC_LIMIT} lines`, async () => {
  const docs = ['README.md', ...(await readdir(join(ROOT, 'docs'))).map((name) => join('docs', name))]
  const over = []
  for (const path of docs.filter((name) => name.endsWith('.md'))) if ((await lines(path)) > DOC_LIMIT) over.push(path)
  expect(over).toEqual([])
})
