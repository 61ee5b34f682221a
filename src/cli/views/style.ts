import {Chalk, type ChalkInstance} from 'chalk'
import chalk from 'chalk'

/** Colours only for a person at a terminal: never in pipes, files or CI logs, never with NO_COLOR (no-color.org). */
export function colorsEnabled(
  stream: {isTTY?: boolean} = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR
}

/** The chalk every command prints with; plain text when colours are off. */
export const style: ChalkInstance = new Chalk({level: colorsEnabled() ? (Math.max(chalk.level, 1) as 1 | 2 | 3) : 0})
