import {stepName, whatDiffered} from '../../scenarios/errors.js'
import type {ScenarioReport, StepReport} from '../../scenarios/run.js'
import {plural} from './format.js'
import {printable} from './printable.js'
import {style} from './style.js'

// a failed step's got values can be whole checks: a line shows the start of its differences
const MAX_DIFF = 300

/**
 * One step as `scenario run` prints it: ✓ or ✗, its number and id, what it
 * did and the status it got; under a ✗, what differed (expected vs got).
 *
 * @example
 * renderStepLine(step) // '✓ 1 (open) push PUT /checks/external/t7-k3x9 → 201'
 */
export function renderStepLine(step: StepReport): string {
  const name = stepName(step.step, step.id)

  // a title holds the values its references gave, and an error the server's words: either may hold what a record held
  const title = printable(step.title)
  if (step.skipped)
    return style.dim(`- ${name} ${title}: skipped, ${printable(step.error ?? 'a step before it failed')}`)
  const got = step.status === undefined ? '' : ` → ${step.status ?? 'no answer'}`
  const line = `${step.ok ? style.green('✓') : style.red('✗')} ${name} ${title}${got}`
  if (step.ok) return line
  return `${line}\n    ${style.red(printable(whatDiffered(step, MAX_DIFF)))}`
}

/** The last lines: how many steps held, the endpoint a --forward-to made (and removed), and any it could not remove. */
export function renderScenarioSummary(report: ScenarioReport): string {
  const counts = [`${report.passed} passed`, `${report.failed} failed`]
  if (report.skipped > 0) counts.push(`${report.skipped} skipped`)
  const verdict = `${report.scenario} (run ${report.run}): ${plural(report.steps.length, 'step')}, ${counts.join(', ')}.`
  const lines = [report.ok ? style.green(verdict) : style.red(verdict)]
  const leftBehind = report.left_behind ?? []
  if (report.forwarded_to) {
    const {url, endpoint_id} = report.forwarded_to
    const removed = leftBehind.some((e) => e.endpoint_id === endpoint_id) ? 'not removed' : 'removed'
    lines.push(
      `Webhooks went to ${url} through endpoint ${endpoint_id} (${removed}), signed with the account's listen secret (tablepay listen --print-secret).`,
    )
    if (report.forwarded_to.delivered === false)
      lines.push(
        style.red(
          `No delivery to ${url} succeeded (a 2xx) during the run: is your receiver running there? \`tablepay deliveries list --endpoint ${endpoint_id}\` shows what each attempt got.`,
        ),
      )
  }
  for (const {endpoint_id, url, error} of leftBehind)
    lines.push(
      style.red(
        printable(
          `Endpoint ${endpoint_id} (${url}) could not be removed (${error}): delete it with tablepay webhooks delete ${endpoint_id}.`,
        ),
      ),
    )
  return lines.join('\n')
}
