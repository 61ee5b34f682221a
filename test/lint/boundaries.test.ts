import {ESLint} from 'eslint'
import {describe, expect, test} from 'vitest'

// The import rules of eslint.config.js (ARCHITECTURE.md, "The layers"), run on
// source text placed at a path: only the two boundary rules, without type
// information, so the paths need not exist.
const eslint = new ESLint({
  cwd: new URL('../..', import.meta.url).pathname,
  ruleFilter: ({ruleId}) => ruleId === 'no-restricted-imports' || ruleId === 'no-restricted-syntax',
  overrideConfig: {languageOptions: {parserOptions: {projectService: false}}},
})

/** The specifiers of `imports` that the rules refuse in a file at `path`. */
async function refused(path: string, imports: string[]): Promise<string[]> {
  const text = imports.map((from, i) => `import * as m${i} from '${from}'\n`).join('') + 'export {}\n'
  const [result] = await eslint.lintText(text, {filePath: path})
  const fatal = result!.messages.filter((m) => m.fatal)
  expect(fatal).toEqual([])
  return result!.messages.map((m) => imports[m.line - 1]!)
}

describe('import boundaries', () => {
  test('the backward arrows of issue 13 are refused', async () => {
    expect(await refused('src/webhooks/send.ts', ['../client/network-reason.js'])).toEqual([
      '../client/network-reason.js',
    ])
    expect(await refused('src/server/start.ts', ['../client/config.js'])).toEqual(['../client/config.js'])
    expect(await refused('src/cli/views/serve-banner.ts', ['../../server/start.js'])).toEqual(['../../server/start.js'])
  })

  test('a lower layer imports no higher one, at any depth', async () => {
    expect(await refused('src/domain/push.ts', ['../store/store.js', '../service/index.js'])).toHaveLength(2)
    expect(await refused('src/store/store.ts', ['../webhooks/clock.js', '../service/storage.js'])).toHaveLength(2)
    expect(await refused('src/webhooks/dispatcher.ts', ['../service/index.js', '../server/app.js'])).toHaveLength(2)
    expect(await refused('src/service/checks.ts', ['../server/app.js', '../client/client.js'])).toHaveLength(2)
    expect(await refused('src/server/routes/checks.ts', ['../../client/client.js', '../../cli/x.js'])).toHaveLength(2)
    expect(await refused('src/client/client.ts', ['../server/app.js', '../store/store.js'])).toHaveLength(2)
    expect(await refused('src/shared/network-reason.ts', ['../domain/ids.js', '../client/client.js'])).toHaveLength(2)
    expect(await refused('src/web/assets.ts', ['../server/app.js', '../domain/ids.js'])).toHaveLength(2)
  })

  test('the CLI and the commands go through the client, not the store or the service', async () => {
    expect(await refused('src/cli/replay/run.ts', ['../../store/store.js', '../../service/index.js'])).toHaveLength(2)
    expect(
      await refused('src/commands/checks/push.ts', ['../../store/store.js', '../../service/index.js']),
    ).toHaveLength(2)
  })

  test('each arrow the layer table names is allowed', async () => {
    expect(await refused('src/store/store.ts', ['../domain/ids.js'])).toEqual([])
    expect(await refused('src/webhooks/dispatcher.ts', ['../domain/deliveries.js', '../store/store.js'])).toEqual([])
    expect(
      await refused('src/service/checks.ts', ['../domain/push.js', '../store/store.js', '../webhooks/clock.js']),
    ).toEqual([])
    expect(await refused('src/server/routes/guest.ts', ['../../service/index.js', '../../web/assets.js'])).toEqual([])
    expect(await refused('src/cli/signing/sign.ts', ['../../client/config.js', '../../webhooks/signature.js'])).toEqual(
      [],
    )
    expect(await refused('src/webhooks/send.ts', ['../shared/network-reason.js'])).toEqual([])
    expect(await refused('src/commands/serve.ts', ['../server/start.js', '../cli/command.js'])).toEqual([])
    expect(await refused('src/msw.ts', ['./service/index.js', './store/store.js', './simulator-controls.js'])).toEqual(
      [],
    )
  })

  test('a scenario run goes through the client, like a user script: not the server, the service or the CLI', async () => {
    expect(await refused('src/scenarios/run.ts', ['../client/client.js', '../domain/scenario.js'])).toEqual([])
    expect(
      await refused('src/scenarios/run.ts', ['../server/app.js', '../service/index.js', '../cli/command.js']),
    ).toHaveLength(3)
    expect(await refused('src/simulator-controls.ts', ['./scenarios/run.js'])).toEqual([])
  })

  test('the entry points never load the CLI', async () => {
    expect(await refused('src/testing.ts', ['./cli/command.js', './commands/serve.js'])).toHaveLength(2)
  })

  test('a folder inside a layer that shares a name with another layer is not taken for it', async () => {
    expect(await refused('src/cli/replay/run.ts', ['../webhooks/x.js', './server/x.js'])).toEqual([])
  })

  test('the domain uses no node: module but node:crypto', async () => {
    expect(await refused('src/domain/ids.ts', ['node:fs', 'node:http', 'fs', 'node:crypto'])).toEqual([
      'node:fs',
      'node:http',
      'fs',
    ])
  })

  test('a dynamic import() of a forbidden folder is refused like a static one', async () => {
    const text = "export const load = () => import('../server/start.js')\n"
    const [result] = await eslint.lintText(text, {filePath: 'src/webhooks/send.ts'})
    expect(result!.messages.map((m) => m.ruleId)).toEqual(['no-restricted-syntax'])
  })
})
