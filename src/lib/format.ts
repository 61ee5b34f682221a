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

/** `1 item`, `3 items`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}
