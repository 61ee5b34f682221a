// How the bench reports: progress lines on stderr, figures against their
// targets, and the table printed at the end.

const begun = performance.now()

/** A line on stderr; the elapsed time on each shows where a run's minutes go. */
export const progress = (text) =>
  process.stderr.write(`bench [${Math.round((performance.now() - begun) / 1000)} s]: ${text}\n`)

export const round = (value, digits = 0) => Number(value.toFixed(digits))

/**
 * A ratio as the table shows it: two decimals, two significant digits below
 * 0.1 (json-server's ratio is a few ten-thousandths), and three decimals
 * where two would round a miss onto its target (0.899 is not 0.9).
 *
 * @param {number} ratio
 * @param {number | undefined} at_least
 * @param {number | undefined} at_most
 */
function shownRatio(ratio, at_least, at_most) {
  if (ratio < 0.1) return Number(ratio.toPrecision(2))
  const shown = round(ratio, 2)
  const hidesMiss =
    (at_least !== undefined && ratio < at_least && shown >= at_least) ||
    (at_most !== undefined && ratio > at_most && shown <= at_most)
  return hidesMiss ? round(ratio, 3) : shown
}

/**
 * A figure against its target: `at_least`/`at_most` apply to `ratio` when
 * there is a baseline, else to `value`. `ratio` defaults to value / baseline;
 * paired runs pass the median of their per-round ratios instead.
 *
 * @param {string} name
 * @param {string} unit
 * @param {number} value
 * @param {{baseline?: number, ratio?: number, at_least?: number, at_most?: number, note?: string}} [options]
 */
export function figure(name, unit, value, {baseline, ratio: pairedRatio, at_least, at_most, note} = {}) {
  const ratio = pairedRatio ?? (baseline === undefined ? undefined : value / baseline)
  const judged = ratio ?? value
  const target =
    at_least !== undefined
      ? `>= ${at_least}${baseline === undefined ? ` ${unit}` : ''}`
      : at_most !== undefined
        ? `<= ${at_most}${baseline === undefined ? ` ${unit}` : ''}`
        : undefined
  const pass = target === undefined ? undefined : at_least !== undefined ? judged >= at_least : judged <= at_most
  return {
    name,
    unit,
    value: round(value, 1),
    baseline: baseline === undefined ? undefined : round(baseline, 1),
    ratio: ratio === undefined ? undefined : shownRatio(ratio, at_least, at_most),
    target,
    pass,
    note,
  }
}

/** A figure whose server could not be measured: reported, never passed. */
export const missing = (name, note) => ({name, unit: '', value: NaN, target: undefined, pass: undefined, note})

export function printTable(figures) {
  const rows = figures.map((f) => [
    f.name,
    `${f.value} ${f.unit}`,
    f.baseline === undefined ? '' : `${f.baseline} ${f.unit}`,
    f.ratio === undefined ? '' : `${f.ratio}`,
    f.target ?? '',
    f.pass === undefined ? '' : f.pass ? 'pass' : 'FAIL',
  ])
  const header = ['figure', 'value', 'baseline', 'ratio', 'target', '']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd()
  console.log([line(header), ...rows.map(line)].join('\n'))
}
