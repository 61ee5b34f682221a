import {Chalk, type ChalkInstance} from 'chalk'
import chalk from 'chalk'
import {colorsEnabled} from './colors.js'

/** The chalk every command prints with; plain text when colours are off. */
export const style: ChalkInstance = new Chalk({level: colorsEnabled() ? (Math.max(chalk.level, 1) as 1 | 2 | 3) : 0})
