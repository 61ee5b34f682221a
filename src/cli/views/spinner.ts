import type {Ora} from 'ora'
import {colorsEnabled} from './colors.js'

/** A wait shorter than this shows nothing: a spinner that flashes is noise. */
const SHOW_AFTER_MS = 1000

/** The spinner on screen, if any, and whether it is a request's (which gives way to the command's own). */
let shown: {spinner: Ora; request: boolean} | undefined
/** The command's own waits under way (not a request's): a request under one shows nothing of its own. */
let commandWaits = 0

/**
 * Runs `work`, showing a spinner on stderr if it takes more than a second,
 * and only for a person at a terminal (never in pipes, CI logs, with
 * `NO_COLOR` or with `--json`). One spinner at a time: `request` marks the
 * wait for one API request (ApiCommand's fetch), which shows only when the
 * command shows no wait of its own.
 *
 * @example
 * const clock = await withSpinner('Running what falls due', client.advanceClock(7200), {quiet: this.jsonEnabled()})
 */
export async function withSpinner<T>(
  text: string,
  work: Promise<T>,
  {
    quiet = false,
    progress,
    request = false,
  }: {quiet?: boolean; progress?: () => string | undefined; request?: boolean} = {},
): Promise<T> {
  if (!spinnerShown(quiet)) return work
  if (!request) commandWaits++
  let done = false
  let spinner: Ora | undefined
  // `progress` may say more as the wait goes on
  const refresh = setInterval(() => spinner && (spinner.text = progress?.() ?? text), 250)
  // ora is loaded only for a wait that lasts: most never do, and it costs tens of milliseconds at start-up
  const timer = setTimeout(async () => {
    const {default: ora} = await import('ora')
    if (done || (request && (commandWaits > 0 || shown)) || (!request && shown && !shown.request)) return
    shown?.spinner.stop()
    spinner = ora({text, stream: process.stderr}).start()
    shown = {spinner, request}
  }, SHOW_AFTER_MS)
  try {
    return await work
  } finally {
    if (!request) commandWaits--
    if (shown?.spinner === spinner) shown = undefined
    done = true
    clearTimeout(timer)
    clearInterval(refresh)
    spinner?.stop()
  }
}

/**
 * Whether `withSpinner` shows anything: only for a person at a terminal. A
 * terminal of 0 columns (a pty nobody sized, as `script` makes in a pipe)
 * shows nothing: ora would count its line as filling Infinity rows and
 * clear them forever.
 */
export const spinnerShown = (quiet = false) => !quiet && colorsEnabled(process.stderr) && process.stderr.columns !== 0
