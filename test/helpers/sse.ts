import {once} from 'node:events'
import {get, type IncomingMessage} from 'node:http'

export interface Stream {
  status: number
  headers: IncomingMessage['headers']
  /** Every byte received so far. */
  text: string
  /** Resolves once the received text satisfies `done`. */
  until(done: (text: string) => boolean): Promise<string>
  /** Resolves with every byte received once the server has ended the stream. */
  ended(): Promise<string>
  close(): void
}

/** A server-sent event stream over its own connection, or the refusal in `text`; `close` it when done. */
export async function openStream(url: string, headers: Record<string, string> = {}): Promise<Stream> {
  const req = get(url, {agent: false, headers})
  const [res] = (await once(req, 'response')) as [IncomingMessage]
  let ended = false
  res.on('end', () => (ended = true))
  const stream: Stream = {
    status: res.statusCode!,
    headers: res.headers,
    text: '',
    until: (done) =>
      new Promise((resolve, reject) => {
        const end = () => reject(new Error(`stream ended: ${stream.text.slice(-2000)}`))
        const check = () => done(stream.text) && resolve(stream.text)
        res.on('data', check).on('end', end)
        if (!check() && ended) end()
      }),
    // asked for only when awaited: a listener of `once` would turn the reset of a closed stream into an error
    ended: async () => (ended ? stream.text : once(res, 'end').then(() => stream.text)),
    close: () => req.destroy(),
  }
  res.setEncoding('utf8').on('data', (chunk: string) => (stream.text += chunk))
  if (stream.status !== 200) await once(res, 'end')
  return stream
}
