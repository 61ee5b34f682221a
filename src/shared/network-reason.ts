/**
 * Why a `fetch` got no answer, in a word: `ECONNREFUSED`, `ENOTFOUND`… fetch
 * wraps socket errors in TypeError('fetch failed'): the errno code is on its
 * cause, or on the cause's errors when several addresses were tried.
 */
export function networkReason(error: unknown): string {
  const cause = (error as {cause?: {code?: string; message?: string; errors?: {code?: string}[]}})?.cause
  return cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (error as Error)?.message ?? String(error)
}
