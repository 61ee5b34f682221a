/**
 * Why a `fetch` got no answer, in a word: `ECONNREFUSED`, `ENOTFOUND`… fetch
 * wraps socket errors in TypeError('fetch failed'): the errno code is on its
 * cause, or on the cause's errors when several addresses were tried.
 */
export function networkReason(error: unknown): string {
  const cause = (error as {cause?: {code?: string; message?: string; errors?: {code?: string}[]}})?.cause
  return cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (error as Error)?.message ?? String(error)
}

/**
 * What to do when `reason` (`networkReason`'s) says the receiver's certificate is not trusted: self-signed,
 * from an unknown CA, or another host's; undefined for any other reason.
 */
export function certificateHint(reason: string): string | undefined {
  if (!/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(reason)) return undefined
  return "Node does not trust the receiver's certificate: give its CA in NODE_EXTRA_CA_CERTS=ca.pem (to `serve` too), or use http:// on this machine."
}
