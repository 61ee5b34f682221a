/**
 * Makes the worker's stderr look like a terminal, as ora and the CLI's
 * colour check see one (it is a pipe), until the returned function undoes
 * it. For tests of what only a person at a terminal sees: spinners. `CI` is
 * unset meanwhile: ora animates (hides the cursor, shows it again on stop)
 * only where it is not, so a test run in CI sees what a person does.
 *
 * @example
 * const restore = stderrAsTerminal()
 * try { … } finally { restore() }
 */
export function stderrAsTerminal({columns = 80} = {}): () => void {
  const terminal = {isTTY: true, columns, cursorTo: () => true, clearLine: () => true, moveCursor: () => true}
  const saved = Object.fromEntries(Object.keys(terminal).map((name) => [name, Reflect.get(process.stderr, name)]))
  const ci = process.env.CI
  Object.assign(process.stderr, terminal)
  delete process.env.CI
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) Reflect.deleteProperty(process.stderr, name)
      else Reflect.set(process.stderr, name, value)
    }
    if (ci !== undefined) process.env.CI = ci
  }
}
