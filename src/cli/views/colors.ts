/**
 * Colours only for a person at a terminal: never in pipes, files or CI logs, never with NO_COLOR (no-color.org).
 * A module of its own, without chalk: the spinner's check, which `serve`'s lean path bundles, loads no colours.
 *
 * @example
 * colorsEnabled(process.stderr) // false in a pipe
 */
export function colorsEnabled(
  stream: {isTTY?: boolean} = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR
}
