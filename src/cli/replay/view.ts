import type {Scenario} from './scenario.js'
import type {PushOutcome, ReplayReport} from './run.js'
import {plural} from '../views/format.js'
import {style} from '../views/style.js'
import {renderTable} from '../views/table.js'

const word = (outcome: PushOutcome) => ('result' in outcome ? outcome.result : `refused: ${outcome.error.code}`)

/** Push by push: what it answered in order, and (several answers for a duplicate) shuffled. */
function renderPushes(report: ReplayReport, scenario: Scenario): string {
  const shuffled = new Map<number, string[]>()
  report.shuffled.order.forEach((push, i) =>
    shuffled.set(push, [...(shuffled.get(push) ?? []), word(report.shuffled.outcomes[i]!)]),
  )
  const rows = scenario.pushes.map(({external_id, body}, i) => ({
    push: i + 1,
    external_id,
    version: body.version,
    inOrder: word(report.in_order.outcomes[i]!),
  }))
  return renderTable(rows, [
    {header: '#', value: (r) => String(r.push), align: 'right'},
    {header: 'CHECK', value: (r) => r.external_id},
    {header: 'VERSION', value: (r) => (r.version === undefined ? '-' : String(r.version)), align: 'right'},
    {
      header: 'IN ORDER',
      value: (r) => r.inOrder,
      color: (text, r) => (r.inOrder === 'stale' || r.inOrder.startsWith('refused') ? style.red(text) : text),
    },
    {header: 'SHUFFLED', value: (r) => shuffled.get(r.push)!.join(', ')},
  ])
}

const show = (value: unknown) => (value === undefined ? '(none)' : JSON.stringify(value))

/** The whole replay for a person: the order used, each push's answers, then the verdict's evidence. */
export function renderReplay(report: ReplayReport, scenario: Scenario): string {
  const sentTwice = report.shuffled.order.length - scenario.pushes.length
  const lines = [
    `${plural(scenario.pushes.length, 'push', 'pushes')} to ${plural(report.checks.length, 'check')}.`,
    `Shuffled with --seed ${report.seed}${sentTwice > 0 ? `, ${plural(sentTwice, 'push', 'pushes')} sent twice` : ''}: ${report.shuffled.order.join(' ')}`,
    '',
    renderPushes(report, scenario),
  ]
  if (report.differences.length > 0) {
    lines.push(
      '',
      style.red('The two runs ended in different states:'),
      renderTable(report.differences, [
        {header: 'CHECK', value: (d) => d.external_id},
        {header: 'PATH', value: (d) => d.path},
        {header: 'IN ORDER', value: (d) => show(d.in_order)},
        {header: 'SHUFFLED', value: (d) => show(d.shuffled)},
      ]),
    )
  }
  if (report.problems.length > 0) lines.push('')
  for (const p of report.problems) {
    const what =
      'error' in p.outcome
        ? `was refused: ${p.outcome.error.message}`
        : 'was stale: a push made later has a lower version than one made before'
    lines.push(
      style.red(
        `${p.run === 'in_order' ? 'In order' : 'Shuffled'}, push #${p.push} (${p.external_id}, version ${p.version ?? 'none'}) ${what}`,
      ),
    )
  }
  if (report.ok)
    lines.push(
      '',
      style.green(
        `Both runs ended in the same state for ${plural(report.checks.length, 'check')}: the versions converge.`,
      ),
    )
  if (report.kept) {
    lines.push(
      '',
      `Kept the scratch accounts: in order ${report.accounts.in_order.id} (key ${report.accounts.in_order.api_key}), shuffled ${report.accounts.shuffled.id} (key ${report.accounts.shuffled.api_key}).`,
    )
  }
  return lines.join('\n')
}
