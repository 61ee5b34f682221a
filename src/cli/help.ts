import {type Command, CommandHelp, Help as OclifHelp} from '@oclif/core'
import {type ExitCodes, exitCodesOf} from './exit-codes.js'

/** oclif's help of a command, ending with its EXIT CODES (exit-codes.ts). */
class CommandHelpWithExitCodes extends CommandHelp {
  protected override sections(): ReturnType<CommandHelp['sections']> {
    // the manifest keeps a command's static exitCodes, so help reads them without loading the command
    const command = this.command as Command.Loadable & {exitCodes?: ExitCodes}
    return [
      ...super.sections(),
      {header: 'EXIT CODES', generate: (_, header) => ({header, body: exitCodesOf(command)})},
    ]
  }
}

/**
 * The help of every command, plugins' too (package.json, `oclif.helpClass`).
 *
 * @example
 * // package.json: "oclif": {"helpClass": "./dist/cli/help.js"}
 */
export default class Help extends OclifHelp {
  protected override CommandHelpClass = CommandHelpWithExitCodes
}
