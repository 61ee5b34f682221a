// How the dashboard words a delivery's attempts (docs/pages.md, "The dashboard").
import {clock} from './dom.js'

/**
 * When a pending delivery's next attempt is. After an attempt, as how far after that one was due (`retry 5m
 * after #2 was due, on the scheduler clock`): a time of day on the scheduler clock looks hours away once the
 * clock was advanced, while its attempts show wall-clock times (docs/api.md, "Webhooks", the scheduler clock).
 */
export function nextAttempt({attempts, next_attempt_at: next}) {
  const last = attempts.at(-1)
  if (!last) return `due ${clock(next)} on the scheduler clock`
  const wait = span(Date.parse(next) - Date.parse(last.scheduled_at))
  return `retry ${wait} after #${last.attempt} was due, on the scheduler clock`
}

/** A wait in its largest unit, as `formatDuration` starts it (src/domain/duration.ts): `5m`, `2h`, `30s`. */
function span(ms) {
  const units = [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]]
  const [unit, size] = units.find(([, size]) => ms >= size) ?? ['s', 1000]
  return `${Math.floor(Math.max(ms, 0) / size)}${unit}`
}

/** The first line of a failed attempt's answer: what the receiver said. */
export function answerLine(attempt) {
  if (!attempt.error) return ''
  const line = (attempt.response_body ?? '').split(/\r?\n/).map((l) => l.trim()).find(Boolean)
  return line ? ` · "${line.slice(0, 120)}"` : ''
}
