/**
 * The flag of `flags` that takes `word` when it is an id (`pay_…`): the
 * one whose summary names its prefix, as `(pay_…)`. For an id given as an
 * argument where a flag takes it (`tablepay trigger refund pay_1`).
 *
 * @example
 * flagTaking('pay_1', {payment: {summary: 'The payment to refund (pay_…).'}}) // 'payment'
 */
export function flagTaking(word: string, flags: Readonly<Record<string, {summary?: string}>>): string | undefined {
  const prefix = /^[a-z]+_(?=\w+$)/.exec(word)?.[0]
  return prefix && Object.entries(flags).find(([, flag]) => flag.summary?.includes(`(${prefix}…)`))?.[0]
}
