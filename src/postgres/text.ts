/**
 * Text as a text column keeps it: PostgreSQL's text holds no NUL, which ids
 * may contain (an idempotency key's id joins account, scope and key with
 * one), so NUL is written `\0` and a backslash `\\`. Records keep their
 * text untouched in their json column.
 */
export function text(value: string): string {
  const nul = String.fromCharCode(0)
  return value.includes(nul) || value.includes('\\') ? value.replaceAll('\\', '\\\\').replaceAll(nul, '\\0') : value
}

/** The text `text()` was given. */
export function untext(value: string): string {
  return value.includes('\\')
    ? value.replace(/\\(\\|0)/g, (_, c: string) => (c === '0' ? String.fromCharCode(0) : '\\'))
    : value
}
