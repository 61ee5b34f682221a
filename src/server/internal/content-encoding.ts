import {promisify} from 'node:util'
import {brotliDecompress, gunzip, inflate, inflateRaw, type ZlibOptions} from 'node:zlib'
import type {H3Event} from 'h3'
import {ApiError} from '../../domain/errors.js'
import {requestHeader} from './headers.js'

type Decoder = (buffer: Buffer, options: ZlibOptions) => Promise<Buffer>

const zlibInflate: Decoder = promisify(inflate)
const rawInflate: Decoder = promisify(inflateRaw)

/** `deflate` is zlib-wrapped (RFC 9110, 8.4.1.2), yet some clients send bare deflate data under it, as browsers read. */
async function inflateEither(buffer: Buffer, options: ZlibOptions): Promise<Buffer> {
  try {
    return await zlibInflate(buffer, options)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error
    return rawInflate(buffer, options)
  }
}

const DECODERS: Record<string, Decoder> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: inflateEither,
  br: promisify(brotliDecompress) as Decoder,
}

const TOKEN = /^[a-z0-9!#$%&'*+.^_`|~-]{1,40}$/

/**
 * The codings of the request's body, in the order they were applied (`identity` left out): its
 * `Content-Encoding`, then its `Transfer-Encoding` but the `chunked` that Node's parser undoes (`gzip,
 * chunked`); undefined for a body sent as is. Any coding but gzip, deflate and br is a 415, answered before
 * the body is read.
 */
export function requestCodings(event: H3Event): string[] | undefined {
  const codings = [...codingsOf(event, 'content-encoding'), ...codingsOf(event, 'transfer-encoding')]
  return codings.length > 0 ? codings : undefined
}

function codingsOf(event: H3Event, name: 'content-encoding' | 'transfer-encoding'): string[] {
  const header = requestHeader(event, name)
  if (!header) return []
  const codings = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity' && c !== 'chunked')
  const unknown = codings.find((c) => !Object.hasOwn(DECODERS, c))
  if (unknown !== undefined) {
    // a header can hold any bytes: it is named only when it reads as a coding name
    const named = TOKEN.test(unknown) ? ` "${unknown}"` : ''
    const field = name === 'content-encoding' ? 'Content-Encoding' : 'Transfer-Encoding'
    throw new ApiError(
      'unsupported_content_encoding',
      `${field}${named} is not supported: send the body as is, or encoded with gzip, deflate or br.`,
    )
  }
  return codings
}

/**
 * `raw` decoded by `codings` (last applied, first undone). Decoding stops as
 * soon as the output passes `limit`: a small compressed bomb costs no more
 * than a body of `limit` bytes.
 */
export async function decodeBody(
  raw: Buffer,
  codings: string[],
  limit: number,
  tooLarge: () => ApiError,
): Promise<Buffer> {
  let body = raw
  for (const coding of codings.toReversed()) {
    try {
      body = await DECODERS[coding]!(body, {maxOutputLength: limit})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge()
      throw new ApiError(
        'invalid_json',
        `Request body is not valid ${coding} data, as its Content-Encoding (or Transfer-Encoding) says.`,
      )
    }
  }
  return body
}
