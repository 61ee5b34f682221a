import {type Hook, type Interfaces, loadHelpClass, toConfiguredId} from '@oclif/core'
import {usageError, visibleCommands} from './usage-error.js'
import {shellWord} from '../../shared/shell-word.js'
import {flagTaking} from '../id-flag.js'
import {nearestOf} from '../nearest.js'

/**
 * An unknown command (`tablepay checks lsit`) is a wrong command line: it
 * exits 2 like an unknown flag, names the command as typed (not oclif's
 * `checks:lsit`), suggests the nearest one and where the list is, and with
 * --json prints the error body on stdout like every other failure.
 *
 * @example
 * // package.json: "oclif": {"hooks": {"command_not_found": "./dist/cli/hooks/command-not-found.js"}}
 */
const hook: Hook<'command_not_found'> = async function ({config, id, argv = []}) {
  // `tablepay help checks push` asks for `tablepay checks push --help`, as git's and npm's help do
  const asked = id.split(':')
  if (asked[0] === 'help') {
    const subject = asked.slice(1).join(':')
    if (!subject || config.findCommand(subject) || config.findTopic(subject))
      return showHelp(config, [subject, ...argv])
  }
  const words = asked[0] === 'help' ? asked.slice(1) : asked
  // `tablepay --json` alone: oclif took the flag for the command's id
  const line = [id, ...argv]
  const typed = toConfiguredId(words.join(':'), config)
  const commands = visibleCommands(config)
  // a topic too: `tablepay chekcs` meant `tablepay checks`
  const topics = config.topics.filter((t) => !t.hidden).map((t) => toConfiguredId(t.name, config))
  const nearest = nearestOf(typed, [...commands, ...topics])
  const topic = config.findTopic(words[0]!) ? ` ${words[0]}` : ''
  // `tablepay clock show now`: a command that takes no arguments, given one (oclif read it as part of the id)
  const command = commands.filter((c) => typed.startsWith(`${c} `)).sort((a, b) => b.length - a.length)[0]
  if (command) {
    const rest = typed.slice(command.length + 1)
    const found = config.findCommand(command.replaceAll(' ', ':'))
    // `tablepay exec npm test`: exec runs what comes after `--` (its usage says so)
    const runs = [found?.usage ?? []].flat().join(' ').includes(' -- ')
    // the line as typed after it, flags too: `tablepay exec npm --version` runs `npm --version`
    const ran = [rest, ...argv.map((arg) => shellWord(arg))].join(' ')
    // `tablepay trigger refund pay_…`: an id that a flag of the command takes
    const flag = flagTaking(rest, found?.flags ?? {})
    const run = `${config.bin} ${command}`
    const instead = runs
      ? `runs what comes after --: ${run} -- ${ran}`
      : flag
        ? `takes it with --${flag}: ${run} --${flag} ${ran}`
        : 'takes none.'
    throw usageError(`Unexpected argument: ${rest}. "${run}" ${instead}`, [`See \`${run} --help\`.`], line)
  }
  // a flag first (`tablepay --json checks list`): oclif reads a command only in the first place
  if (typed.startsWith('-'))
    throw usageError(
      `"${config.bin} ${typed}": a command comes first, then its flags (${config.bin} checks list --json).`,
      [`\`${config.bin} --help\` lists the commands.`],
      line,
    )
  throw usageError(
    `"${config.bin} ${typed}" is not a command.`,
    [
      ...(nearest ? [`Did you mean \`${config.bin} ${nearest}\`?`] : []),
      `\`${config.bin}${topic} --help\` lists the commands.`,
    ],
    line,
  )
}

/** oclif's help of what `argv` names (a topic, a command, or the whole CLI), as `--help` shows it. */
async function showHelp(config: Interfaces.Config, argv: string[]): Promise<void> {
  const Help = await loadHelpClass(config)
  await new Help(config, config.pjson.oclif.helpOptions).showHelp(argv)
}

export default hook
