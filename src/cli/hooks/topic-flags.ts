import {type Hook, toConfiguredId} from '@oclif/core'
import {helpAddition} from '@oclif/core/run'
import {usageError, visibleCommands} from './usage-error.js'

/**
 * A topic run with flags (`tablepay checks --json`) is a wrong command
 * line: oclif would print the topic's help and exit 0, so a script that
 * mistyped a command would read help text as its answer. It exits 2 naming
 * the topic's commands, as an unknown command does (command-not-found.ts).
 * A bare topic, or one with --help, still shows its help: oclif decides that
 * after this hook, and `helpAddition` is its own test for it.
 *
 * @example
 * // package.json: "oclif": {"hooks": {"init": "./dist/cli/hooks/topic-flags.js"}}
 */
const hook: Hook<'init'> = async function ({config, id, argv}) {
  // the common case, a command, settles at the first test: this hook runs before every command
  if (id === undefined || argv.length === 0 || config.findCommand(id) || !config.findTopic(id)) return
  if (helpAddition(argv, config)) return
  const topic = toConfiguredId(id, config)
  throw usageError(
    `"${config.bin} ${topic}" is a group of commands: ${visibleCommands(config, id).sort().join(', ')}.`,
    [`Run one of them; \`${config.bin} ${topic} --help\` says what each does.`],
    argv,
  )
}

export default hook
