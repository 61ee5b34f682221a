import {describe, expect, it} from 'vitest'
import {MAX_MESSAGE_CHARS, readServerSentEvents} from '../../src/client/stream.js'

/** A response whose body arrives as `chunks`, then ends. */
function responseOf(chunks: (string | Uint8Array)[]): Response {
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk)
      controller.close()
    },
  })
  return new Response(body)
}

async function messagesOf(chunks: (string | Uint8Array)[], types?: string[]) {
  const messages = types
    ? readServerSentEvents(responseOf(chunks), undefined, types)
    : readServerSentEvents(responseOf(chunks))
  const read = []
  for await (const message of messages) read.push(message)
  return read
}

const event = {id: 'evt_1', object: 'event', type: 'check.created', note: 'café ☕'}
const delivery = {id: 'dlv_1', object: 'delivery', status: 'pending'}

describe('readServerSentEvents', () => {
  it('reads messages whose lines end in LF, CRLF or CR alike', async () => {
    for (const end of ['\n', '\r\n', '\r']) {
      const text = `event: event${end}data: ${JSON.stringify(event)}${end}${end}event: delivery${end}data: ${JSON.stringify(delivery)}${end}${end}`
      expect(await messagesOf([text])).toEqual([
        {type: 'event', data: event},
        {type: 'delivery', data: delivery},
      ])
    }
  })

  it('skips a byte order mark at the start of the stream', async () => {
    const text = `event: event\ndata: ${JSON.stringify(event)}\n\n`
    expect(await messagesOf([new Uint8Array([0xef, 0xbb, 0xbf]), text])).toEqual([{type: 'event', data: event}])
  })

  it('takes id: lines and comments without letting them change the message', async () => {
    const text = `: keep-alive\n\nid: 42\nevent: event\n: a comment inside\ndata: ${JSON.stringify(event)}\n\n: bye\n`
    expect(await messagesOf([text])).toEqual([{type: 'event', data: event}])
  })

  it('joins the lines of a multi-line data field with newlines', async () => {
    const lines = JSON.stringify(event, null, 2).split('\n')
    const text = `event: delivery\n${lines.map((line) => `data: ${line}`).join('\n')}\n\n`
    expect(await messagesOf([text])).toEqual([{type: 'delivery', data: event}])
  })

  it('reads a message split across two chunks at every byte, a character of several bytes included', async () => {
    const bytes = new TextEncoder().encode(`event: event\r\ndata: ${JSON.stringify(event)}\r\n\r\n`)
    for (let at = 0; at <= bytes.length; at++) {
      const chunks = [bytes.slice(0, at), bytes.slice(at)]
      expect(await messagesOf(chunks), `split at byte ${at}`).toEqual([{type: 'event', data: event}])
    }
  })

  it('reads a message sent one byte at a time', async () => {
    const bytes = new TextEncoder().encode(`event: event\ndata: ${JSON.stringify(event)}\n\n`)
    expect(await messagesOf([...bytes].map((byte) => new Uint8Array([byte])))).toEqual([{type: 'event', data: event}])
  })

  it('yields only the types asked for, and no message without data', async () => {
    const text =
      `event: request\ndata: {"id":"req_1","object":"request"}\n\n` +
      `data: {"unnamed":true}\n\n` +
      `event: event\n\n` +
      `event: event\ndata: ${JSON.stringify(event)}\n\n`
    expect(await messagesOf([text])).toEqual([{type: 'event', data: event}])
    expect(await messagesOf([text], ['request'])).toEqual([{type: 'request', data: {id: 'req_1', object: 'request'}}])
  })

  it("fails with unexpected_answer on a message of a type asked for whose data is not one of the API's objects", async () => {
    const good = `event: event\ndata: ${JSON.stringify(event)}\n\n`
    for (const data of ['{not json', 'null', '5', '[]', '{"id":"evt_1"}'])
      await expect(messagesOf([good, `event: event\ndata: ${data}\n\n`]), data).rejects.toMatchObject({
        code: 'unexpected_answer',
      })
  })

  it('gives up on a message that grows past the bound instead of holding it all', async () => {
    const endless = `event: event\ndata: ${'x'.repeat(MAX_MESSAGE_CHARS)}`
    // a client's error, as every other it throws
    await expect(messagesOf([endless])).rejects.toMatchObject({
      name: 'TablepayUnexpectedAnswerError',
      code: 'unexpected_answer',
      message: expect.stringContaining(`a message past ${MAX_MESSAGE_CHARS} characters`),
    })
  })
})
