import {readFound} from '../../shared/package-file.js'
import type * as z from 'zod'
import {CheckPush} from '../../domain/schemas.js'
import {jsonPath} from '../json-path.js'
import {looksLikeScenario, Scenario} from '../replay/scenario.js'
import {READABLE, whyNotJson} from '../../domain/parse-messages.js'
import {readInputText} from '../input-text.js'

/** One thing wrong with a document: where (a jq path, `.` for the whole) and what. */
export interface Problem {
  path: string
  message: string
}

export type Checked<T> = {valid: true; value: T; problems: []} | {valid: false; problems: Problem[]}

/** zod issues as problems; an unknown key is reported at its own path, not at its parent's. */
export function schemaProblems(error: z.ZodError): Problem[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({path: jsonPath([...issue.path, key]), message: 'unknown field'}))
      : [{path: jsonPath(issue.path), message: issue.message}],
  )
}

function parseJson(text: string): Checked<unknown> {
  try {
    return {valid: true, value: JSON.parse(text), problems: []}
  } catch (error) {
    return {valid: false, problems: [{path: '.', message: `not valid JSON: ${whyNotJson(text, error as Error)}`}]}
  }
}

function checkValue<S extends z.ZodType>(value: unknown, schema: S): Checked<z.output<S>> {
  const result = schema.safeParse(value, READABLE)
  return result.success
    ? {valid: true, value: result.data, problems: []}
    : {valid: false, problems: schemaProblems(result.error)}
}

/**
 * Parses `text` as JSON and checks it against `schema`, with every problem.
 *
 * @example
 * checkJson('{"table": {}}', CheckPush).problems[0] // {path: '.table.number', message: 'Invalid input: expected string, received undefined'}
 */
export function checkJson<S extends z.ZodType>(text: string, schema: S): Checked<z.output<S>> {
  const parsed = parseJson(text)
  return parsed.valid ? checkValue(parsed.value, schema) : parsed
}

/**
 * What `checks lint` says about one file: a push body, checked with the
 * server's own schema, or a replay scenario, whose every push body is.
 */
export function lintDocument(text: string): {kind: 'push' | 'scenario'; problems: Problem[]} {
  const parsed = parseJson(text)
  if (!parsed.valid) return {kind: 'push', problems: parsed.problems}
  const kind = looksLikeScenario(parsed.value) ? 'scenario' : 'push'
  return {kind, problems: checkValue(parsed.value, kind === 'scenario' ? Scenario : CheckPush).problems}
}

export interface FileReport {
  file: string
  kind: 'push' | 'scenario'
  valid: boolean
  problems: Problem[]
}

/**
 * `lintDocument` for a file, or for stdin when `file` is `-` (reported as `-`). A file that cannot be read is one
 * problem, not a crash, so the other files are still checked.
 */
export async function lintFile(file: string): Promise<FileReport> {
  // stdin at a terminal or empty ends the command (readInputText): the command line gave nothing to check
  if (file === '-')
    return lintText(file, (await readInputText(file, {what: 'JSON', named: 'a file instead of -'})).text)
  let text: string
  try {
    text = await readFound(file)
  } catch (error) {
    return {
      file,
      kind: 'push',
      valid: false,
      problems: [
        {
          path: '.',
          message: `cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        },
      ],
    }
  }
  return lintText(file, text)
}

function lintText(file: string, text: string): FileReport {
  const {kind, problems} = lintDocument(text)
  return {file, kind, valid: problems.length === 0, problems}
}
