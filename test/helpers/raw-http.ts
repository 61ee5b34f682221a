import {request} from 'node:http'

export interface RawAnswer {
  status: number
  reason: string
  headers: Record<string, string | string[] | undefined>
  text: string
  body: any
}

/**
 * One request with its path sent byte for byte: `fetch` resolves dot
 * segments and re-encodes paths, which is exactly what some tests must not do.
 */
export interface RawOptions {
  headers?: Record<string, string>
  body?: string | Buffer
}

export function rawRequest(url: string, method: string, path: string, options: RawOptions = {}): Promise<RawAnswer> {
  const {hostname, port} = new URL(url)
  return new Promise((resolve, reject) => {
    // a body sent with Transfer-Encoding goes in chunks (Node's client frames it so), without a length
    const framed = options.body === undefined || options.headers?.['transfer-encoding'] !== undefined
    const length = framed ? {} : {'content-length': String(Buffer.byteLength(options.body!))}
    const req = request({host: hostname, port, method, path, headers: {...length, ...options.headers}}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        let body: unknown
        try {
          body = JSON.parse(text)
        } catch {
          body = undefined
        }
        resolve({status: res.statusCode!, reason: res.statusMessage ?? '', headers: res.headers, text, body})
      })
    })
    req.on('error', reject)
    req.end(options.body)
  })
}
