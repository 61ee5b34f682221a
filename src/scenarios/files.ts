import {createReadStream} from 'node:fs'
import {readdir, readFile, stat} from 'node:fs/promises'
import {join} from 'node:path'
import {checkScenario, type Scenario} from '../domain/scenario.js'
import {MAX_NESTING, nestsPast} from '../domain/json-depth.js'
import {withoutBom} from '../shared/json-file.js'
import {findFile, PACKAGE_ROOT, readText} from '../shared/package-file.js'
import {describeProblem, InvalidScenarioError} from './errors.js'

/** Where the shipped scenarios are, in the package: `scenario run NAME` finds `NAME.json` there. */
const SHIPPED = join(PACKAGE_ROOT, 'fixtures', 'scenarios')

/**
 * The scenario in `value` as validated, or an `InvalidScenarioError` that
 * lists every problem. `source` names it in the message. A value of a
 * program is taken as JSON would hold it (`undefined` left out), and one
 * JSON cannot hold (a BigInt, a cycle) is refused.
 *
 * @example
 * const scenario = validScenario(JSON.parse(text), 'split-bill.json')
 */
export function validScenario(value: unknown, source: string): Scenario {
  let json: unknown
  try {
    json = JSON.parse(JSON.stringify(value) ?? 'null')
  } catch (error) {
    // Node's JSON.stringify overflows the stack on a value this deep before Node 26, and writes it out from 26:
    // on every Node, the check then names the step and the path that nest too deep
    if (!(error instanceof RangeError && nestsPast(value, MAX_NESTING))) {
      const message = `is no JSON value: ${(error as Error).message}`
      throw new InvalidScenarioError(`${source} ${message}.`, [{path: '.', message}])
    }
    json = value
  }
  const checked = checkScenario(json)
  if (checked.valid) return checked.scenario
  const lines = checked.problems.map((p) => `  ${describeProblem(p)}`).join('\n')
  throw new InvalidScenarioError(`${source} is not a valid scenario:\n${lines}`, checked.problems)
}

/**
 * The scenario a user names: a file path (relative paths are also looked up
 * in the package), else the name of a shipped one (`split-bill`).
 *
 * @example
 * const {scenario, file} = await loadScenario('split-bill')
 */
export async function loadScenario(fileOrName: string): Promise<{scenario: Scenario; file: string}> {
  // '' would name the working directory
  if (fileOrName === '')
    throw new InvalidScenarioError(
      `No scenario given: name a scenario file, or a shipped scenario (${await shippedNames()}).`,
    )
  const found = await findFile(fileOrName)
  // a folder of the project named like a shipped scenario (`refund/`) does not hide it
  const file = found !== undefined && (await isFile(found)) ? found : ((await shippedFile(fileOrName)) ?? found)
  if (file === undefined)
    throw new InvalidScenarioError(
      `No scenario file ${fileOrName}, nor a shipped scenario of that name (${await shippedNames()}).`,
    )
  const text = await readText(createReadStream(file)).catch((error: NodeJS.ErrnoException) => {
    const why = error.code === 'EISDIR' ? 'a directory, not a file' : (error.code ?? error.message)
    throw new InvalidScenarioError(`${fileOrName} cannot be read as a scenario: ${why}.`)
  })
  return {scenario: parseScenario(text, fileOrName), file}
}

/**
 * The scenario in a JSON text (which may start with a byte order mark), or an `InvalidScenarioError`: `source`
 * names it in the message, a file as given or `stdin`.
 *
 * @example
 * const scenario = parseScenario(await readFile('dinner.json', 'utf8'), 'dinner.json')
 */
export function parseScenario(text: string, source: string): Scenario {
  let value: unknown
  try {
    value = JSON.parse(withoutBom(text))
  } catch (error) {
    throw new InvalidScenarioError(`${source} is not valid JSON: ${(error as Error).message}`)
  }
  return validScenario(value, source)
}

const shippedNames = async () => (await listShipped()).map((s) => s.name).join(', ')

const isFile = (path: string) =>
  stat(path).then(
    (stats) => stats.isFile(),
    () => false,
  )

async function shippedFile(name: string): Promise<string | undefined> {
  return /^[a-z0-9][a-z0-9-]*$/.test(name) ? findFile(join(SHIPPED, `${name}.json`)) : undefined
}

/** The shipped scenarios, by name, with what each shows. */
export async function listShipped(): Promise<{name: string; description: string; steps: number; file: string}[]> {
  const files = (await readdir(SHIPPED)).filter((f) => f.endsWith('.json')).sort()
  return Promise.all(
    files.map(async (f) => {
      const file = join(SHIPPED, f)
      const scenario = validScenario(JSON.parse(await readFile(file, 'utf8')), f)
      return {name: scenario.name, description: scenario.description ?? '', steps: scenario.steps.length, file}
    }),
  )
}
