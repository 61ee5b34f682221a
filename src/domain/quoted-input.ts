/** The most of a value a message quotes: one pasted by mistake (a whole file) must not bury what the message says. */
const QUOTED_MAX = 100

/**
 * A value the user gave, as a message about it quotes it: in double quotes, cut after 100 characters with how
 * many it had.
 *
 * @example
 * quotedInput('t12') // '"t12"'
 */
export function quotedInput(text: string): string {
  const chars = [...text]
  return chars.length <= QUOTED_MAX
    ? `"${text}"`
    : `"${chars.slice(0, QUOTED_MAX).join('')}…" (${chars.length} characters)`
}
