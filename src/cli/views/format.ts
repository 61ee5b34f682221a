/**
 * Minor units as a decimal amount. Checks carry no currency, so no symbol;
 * two decimals, the exponent of the currencies the simulator seeds.
 *
 * @example
 * formatCents(123456) // '1,234.56'
 */
export function formatCents(cents: number): string {
  return (cents / 100).toLocaleString('en-US', {minimumFractionDigits: 2, maximumFractionDigits: 2})
}

/** A quantity as the POS sent it: `2`, `0.5`, `1.25`. */
export function formatQuantity(quantity: number): string {
  return String(quantity)
}

/** `1 item`, `3 items`; `many` for nouns that take more than an s (`push`, `pushes`). */
export function plural(count: number, noun: string, many = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : many}`
}

/** The time of day of an ISO timestamp, in the local zone: `14:03:27`. */
export function formatTime(iso: string): string {
  return new Date(iso).toLocaleTimeString('en-GB', {hour12: false})
}

/** An ISO timestamp in the local zone, to the second: `2026-11-22 14:03:27`. */
export function formatDateTime(iso: string): string {
  const date = new Date(iso)
  const day = [date.getFullYear(), date.getMonth() + 1, date.getDate()].map((n) => String(n).padStart(2, '0')).join('-')
  return `${day} ${formatTime(iso)}`
}
