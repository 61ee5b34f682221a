/**
 * A tablepay server's URL as the client and the OpenAPI document use it:
 * without a trailing slash or `/v1`, since `serve` prints its URL with `/v1`
 * and users copy it as printed.
 *
 * @example
 * serverBase('http://127.0.0.1:4747/v1/') // 'http://127.0.0.1:4747'
 */
export const serverBase = (url: string): string => url.replace(/\/+$/, '').replace(/\/v1$/, '')
