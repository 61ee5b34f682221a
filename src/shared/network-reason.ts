/**
 * Why a `fetch` got no answer, in a word: `ECONNREFUSED`, `ENOTFOUND`… fetch
 * wraps socket errors in TypeError('fetch failed'): the errno code is on its
 * cause, or on the cause's errors when several addresses were tried.
 */
export function networkReason(error: unknown): string {
  const cause = (error as {cause?: {code?: string; message?: string; errors?: {code?: string}[]}})?.cause
  const reason = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (error as Error)?.message ?? String(error)
  // Node's HTTP parser's codes (HPE_INVALID_CONSTANT): something answered, in another protocol or broken HTTP
  return reason.startsWith('HPE_') ? `not HTTP (${reason})` : reason
}

/**
 * Whether `reason` (`networkReason`'s) says an https URL reached a server that answered in plain HTTP: its
 * first bytes read as no TLS record OpenSSL knows.
 */
export const answeredWithoutTls = (reason: string): boolean =>
  reason === 'ERR_SSL_WRONG_VERSION_NUMBER' || reason === 'ERR_SSL_PACKET_LENGTH_TOO_LONG'

/**
 * What to do when an attempt to a receiver got no answer, by its `reason` (`networkReason`'s, or
 * postDelivery's timeout); undefined when there is nothing to say.
 */
export function receiverHint(reason: string): string | undefined {
  if (reason === 'ECONNREFUSED') return 'Nothing listens there: start your receiver.'
  if (reason.startsWith('no answer within')) return 'Answer a delivery with a 2xx first, then do the slow work.'
  if (reason.startsWith('not HTTP ('))
    return 'Something other than an HTTP receiver answers there: check the port, and http:// or https://.'
  if (answeredWithoutTls(reason)) return 'The receiver answers plain HTTP, not TLS: give its URL with http://.'
  return certificateHint(reason)
}

/**
 * What to do when `reason` (`networkReason`'s) says the receiver's certificate is not trusted: self-signed,
 * from an unknown CA, or another host's; undefined for any other reason.
 */
function certificateHint(reason: string): string | undefined {
  if (!/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(reason)) return undefined
  return "Node does not trust the receiver's certificate: give its CA in NODE_EXTRA_CA_CERTS=ca.pem (to `serve` too), or use http:// on this machine."
}
