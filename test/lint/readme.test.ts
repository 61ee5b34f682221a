import {execFile} from 'node:child_process'
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {beforeAll, expect, test} from 'vitest'
import {ROOT} from '../helpers/cli.js'

let readme: string
/** Each line of the README's code blocks that runs the CLI, with the words that name its command. */
let commandLines: {line: string; at: number; words: string[]}[]

beforeAll(async () => {
  readme = await readFile(join(ROOT, 'README.md'), 'utf8')
  commandLines = [...readme.matchAll(/```(?:sh|console|yaml)\n([\s\S]*?)```/g)].flatMap((block) =>
    block[1]!.split('\n').flatMap((line) => {
      const cli = /(?:^|\s|\$ )(?:\.\/bin\/run\.js|npx tablepay|tablepay) ((?:[a-z][\w-]* ?)+)/.exec(line)
      // `tablepay is listening…` is the server's own output, not a command
      if (!cli || /^tablepay is /.test(line)) return []
      return [{line, at: block.index! + block[0].indexOf(line), words: cli[1]!.trim().split(' ')}]
    }),
  )
})

test('every command the README runs is one the CLI has', async () => {
  const manifest = JSON.parse(await readFile(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: object}
  const ids = Object.keys(manifest.commands).map((id) => id.replace(':', ' '))
  expect(commandLines.length).toBeGreaterThan(20)
  const unknown = commandLines.filter(({words}) => !ids.some((id) => words.join(' ').startsWith(id)))
  expect(unknown.map(({line}) => line)).toEqual([])
})

test('the README says how to call the CLI in a clone before its first tablepay command, and that alias runs it', async () => {
  const alias = /^alias tablepay=.*$/m.exec(readme)!
  expect(alias).not.toBeNull()
  const first = commandLines.find(({line}) => !line.trimStart().startsWith('./bin/run.js'))!
  expect(alias.index).toBeLessThan(first.at)
  const script = `shopt -s expand_aliases\n${alias[0]}\ntablepay --version`
  const {stdout} = await promisify(execFile)('bash', ['-c', script], {cwd: ROOT})
  expect(stdout).toMatch(/^tablepay\/\d+\.\d+\.\d+ /)
})
