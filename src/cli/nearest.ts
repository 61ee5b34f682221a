/**
 * How many edits apart two words are, a swap of two neighbours counting as
 * one (`lsit` is one from `list`, two from `lint`).
 */
function distance(a: string, b: string): number {
  const d = Array.from({length: a.length + 1}, (_, i) =>
    Array.from({length: b.length + 1}, (_, j) => (i === 0 ? j : i)),
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
      }
    }
  }
  return d[a.length]![b.length]!
}

/**
 * What a typo meant: the one of `among` nearest to `typed`, when it is at
 * most two edits away, or a third of what was typed; else undefined.
 *
 * @example
 * nearestOf('checks lsit', ['checks list', 'checks lint']) // 'checks list'
 */
export function nearestOf(typed: string, among: readonly string[]): string | undefined {
  const nearest = among.toSorted((a, b) => distance(typed, a) - distance(typed, b))[0]
  return nearest !== undefined && distance(typed, nearest) <= Math.max(2, Math.floor(typed.length / 3))
    ? nearest
    : undefined
}
