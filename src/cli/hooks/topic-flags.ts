import {type Hook, toConfiguredId} from '@oclif/core'
import {helpAddition} from '@oclif/core/run'

/**
 * A topic run with flags (`tablepay checks --json`) is a wrong command
 * line: oclif would print the topic's help and exit 0, so a script that
 * mistyped a command would read help text as its answer. It exits 2 naming
 * the topic's commands, with the error body on stdout under --json, as an
 * unknown command does (command-not-found.ts). A bare topic, or one with
 * --help, still shows its help: oclif decides that after this hook, and
 * `helpAddition` is its own test for it.
 *
 * @example
 * // package.json: "oclif": {"hooks": {"init": "./dist/cli/hooks/topic-flags.js"}}
 */
const hook: Hook<'init'> = async function ({config, id, argv}) {
  if (id === undefined || argv.length === 0 || helpAddition(argv, config)) return
  if (config.findCommand(id) || !config.findTopic(id)) return
  const topic = toConfiguredId(id, config)
  const commands = config.commands
    .filter((c) => !c.hidden && c.id.startsWith(`${id}:`))
    .map((c) => toConfiguredId(c.id, config))
    .sort()
  // loaded only on this path: the hook runs before every command, verify's and sign's start-up included
  const [{CLIError}, {errorBody}] = await Promise.all([import('@oclif/core/errors'), import('../errors.js')])
  const error = new CLIError(`"${config.bin} ${topic}" is a group of commands: ${commands.join(', ')}.`, {
    exit: 2,
    code: 'invalid_usage',
    suggestions: [`Run one of them; \`${config.bin} ${topic} --help\` says what each does.`],
  })
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(errorBody(error), null, 2)}\n`)
    Object.assign(error, {skipOclifErrorHandling: true})
  }
  throw error
}

export default hook
