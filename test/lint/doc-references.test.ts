import {readdir, readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {expect, test} from 'vitest'
import {ROOT} from '../helpers/cli.js'

/** Where the code and the docs point into docs/: every text file under these, and these files. */
const SOURCES = ['src', 'bench', 'scripts', 'test', 'docs', 'README.md', 'CONTRIBUTING.md', 'CHANGELOG.md']
const TEXT = /\.(ts|js|mjs|cjs|md|lua)$/

async function sourceFiles(): Promise<string[]> {
  const files: string[] = []
  const walk = async (path: string): Promise<void> => {
    if (TEXT.test(path)) return void files.push(path)
    const entries = await readdir(join(ROOT, path), {withFileTypes: true}).catch(() => [])
    for (const entry of entries)
      if (entry.isFile() ? TEXT.test(entry.name) : entry.name !== 'node_modules' && !entry.name.startsWith('.'))
        await walk(join(path, entry.name))
  }
  for (const source of SOURCES) await walk(source)
  return files
}

/** A page's headings and bold run-in leads (`**Connections.**`), lower case: what `docs/<page>.md, "<Section>"` may name. */
async function sectionsOf(page: string): Promise<string[] | undefined> {
  const text = await readFile(join(ROOT, page), 'utf8').catch(() => undefined)
  if (text === undefined) return undefined
  const headings = [...text.matchAll(/^#+ (.+)$/gm)].map((match) => match[1]!)
  const leads = [...text.matchAll(/\*\*([^*]+)\*\*/g)].map((match) => match[1]!)
  return [...headings, ...leads].map((section) => section.toLowerCase())
}

test('every `docs/<page>.md, "<Section>"` in the code and the docs names a section the page has', async () => {
  const sections = new Map<string, Promise<string[] | undefined>>()
  const broken: string[] = []
  let references = 0
  for (const file of await sourceFiles()) {
    // a reference that wraps in a comment is read as one line: `(docs/x.md,\n * "Section")`
    const text = (await readFile(join(ROOT, file), 'utf8')).replace(/\n\s*(?:\*|\/\/|#|--)?\s*/g, ' ')
    for (const [, page, section] of text.matchAll(/(docs\/[\w-]+\.md)(?:\]\([^)]*\))?,? "([^"]+)"/g)) {
      references++
      if (!sections.has(page!)) sections.set(page!, sectionsOf(page!))
      const known = await sections.get(page!)
      // a section may be named by the start of its heading: "The request log" for "The request log (support tracing)"
      const named = section!.toLowerCase()
      if (!known?.some((title) => title.startsWith(named))) broken.push(`${file}: ${page}, "${section}"`)
    }
  }
  expect(references).toBeGreaterThan(300)
  expect(broken).toEqual([])
})
