import type {ServerResponse} from 'node:http'
import {type H3Event, setResponseHeaders} from 'h3'
import {ApiError} from '../../domain/errors.js'
import type {Records} from '../../service/records.js'
import type {Change} from '../../service/storage.js'

/**
 * A quiet stream still sends something this often: clients give up on a
 * body that stays silent (Node's fetch after 300 s), and so do proxies.
 */
export const KEEP_ALIVE_MS = 15_000

/** The default caps on open streams (docs/api.md, "Live streams"). */
export const STREAM_LIMITS = {perCheck: 50, perAddress: 100}

// a client this far behind is not reading: it is dropped (and reconnects to the current state) rather than buffered for
const MAX_BEHIND_BYTES = 1024 * 1024

const PING = Buffer.from('event: ping\ndata: \n\n')

const HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'private, no-cache, no-store, no-transform, must-revalidate, max-age=0',
  'x-accel-buffering': 'no',
}

/**
 * The 429 of a stream over a cap. A place frees when any stream closes, which the server cannot foresee:
 * `Retry-After: 1` tells a client that reconnects by itself to wait a little, as a rate limit's 429 does.
 */
function full(event: H3Event, message: string): ApiError {
  event.node.res.setHeader('retry-after', '1')
  return new ApiError('rate_limited', message)
}

export interface StreamMessageOut {
  event: string
  data: unknown
}

export interface StreamHubOptions {
  /** The service's read side: a topic follows its changes. */
  records: Records
  /** Aborted when the server shuts down: every stream ends then (an open one would keep it from stopping). */
  shutdown: AbortSignal
  /** How often a quiet stream sends a `ping` message (default 15 s). */
  keepAliveMs?: number
  /** Most streams of one check, and from one remote address (default STREAM_LIMITS). */
  limits?: Partial<typeof STREAM_LIMITS>
}

/**
 * What a stream follows. Every stream with the same `key` shares one topic:
 * `select` and `snapshot` run once for all of them.
 */
export interface TopicSpec {
  key: string
  /** The messages a commit means for this topic's streams. */
  select: (changes: readonly Change[]) => StreamMessageOut[]
  /**
   * The current state, sent first to each new stream, so nothing between a
   * client's read and its subscription is missed. A topic with a snapshot
   * ends each batch with the whole state, so its last message is the snapshot.
   */
  snapshot?: () => Promise<StreamMessageOut[]>
  /** Whether a commit ends what the topic follows (its account deleted): its streams end after its messages. */
  ends?: (changes: readonly Change[]) => boolean
  /**
   * Whether what the topic follows is still there, asked once a stream has joined: a commit that ended it before
   * (a deletion after the request's key was read) is not one `ends` sees.
   */
  alive?: () => Promise<boolean>
  /** Most streams this topic may have at once. */
  limit?: number
  /** What to call the topic in a 429 message: "this check". */
  noun?: string
}

/** Where one stream's bytes go: the node response of `serve`, or the web body of a web request (the msw handlers). */
interface Sink {
  write(bytes: Buffer): void
  end(): void
  /** What must live as long as the stream does. */
  holds?: unknown
}

interface Topic {
  clients: Set<Sink>
  /** The bytes of the current state, for topics with a snapshot. */
  latest?: Buffer
  /** Resolves once `latest` holds the snapshot (or a newer state). */
  ready: Promise<void>
  close: () => void
}

const format = (messages: StreamMessageOut[]) =>
  Buffer.from(messages.map((m) => `event: ${m.event}\ndata: ${JSON.stringify(m.data)}\n\n`).join(''))

/**
 * Server-sent event streams fed by the service's units of work, fanned out: each
 * topic (one check, one account) renders a change once and writes the same
 * bytes to all its streams, however many are open. Caps the streams per
 * topic and per remote address (429 `rate_limited` beyond).
 *
 * @example
 * const hub = new StreamHub({records: service.records, shutdown})
 * return hub.open(event, {key: `account:${id}`, select: (changes) => messagesOf(changes)})
 */
export class StreamHub {
  readonly limits: typeof STREAM_LIMITS
  #topics = new Map<string, Topic>()
  #perAddress = new Map<string, number>()
  #renders = 0

  constructor(private readonly options: StreamHubOptions) {
    this.limits = {...STREAM_LIMITS, ...options.limits}
    options.shutdown.addEventListener('abort', () => this.endAll())
  }

  /** Ends every stream: the server stops, or what its streams follow may have been missed (their clients reconnect). */
  endAll(): void {
    for (const topic of this.#topics.values()) for (const sink of topic.clients) sink.end()
  }

  /** Topics and streams open now, and how many message batches were rendered so far (one per topic and change). */
  stats() {
    let streams = 0
    for (const topic of this.#topics.values()) streams += topic.clients.size
    return {topics: this.#topics.size, streams, renders: this.#renders}
  }

  /**
   * Answers with a stream of `spec`'s topic; it lasts until the client goes or the server shuts down. On node it
   * resolves then; on a web request, at once with the body.
   */
  async open(event: H3Event, spec: TopicSpec): Promise<void | ReadableStream<Uint8Array>> {
    const address = event.node.req.socket?.remoteAddress ?? 'unknown'
    const fromAddress = this.#perAddress.get(address) ?? 0
    if (fromAddress >= this.limits.perAddress) {
      const most = this.limits.perAddress
      throw full(event, `Too many live streams from this address (at most ${most} at once); close some first.`)
    }
    const existing = this.#topics.get(spec.key)
    if (spec.limit !== undefined && (existing?.clients.size ?? 0) >= spec.limit) {
      const what = spec.noun ?? 'this topic'
      throw full(event, `Too many live streams of ${what} (at most ${spec.limit} at once); close some first.`)
    }
    const topic = existing ?? this.#createTopic(spec)
    this.#perAddress.set(address, fromAddress + 1)
    const release = () => {
      topic.clients.delete(sink)
      const left = (this.#perAddress.get(address) ?? 1) - 1
      if (left > 0) this.#perAddress.set(address, left)
      else this.#perAddress.delete(address)
      if (topic.clients.size === 0) topic.close()
    }
    setResponseHeaders(event, HEADERS)
    // a web request (toWebHandler) has no connection to write to: h3 answers the handler's web stream as the body
    const {sink, answer} = event.web ? webStream(release, event.web.request) : nodeStream(event.node.res, release)
    topic.clients.add(sink)
    await topic.ready
    // a change batch may have gone out first: a snapshot topic's batches each end with the whole state, so this repeats it at worst
    if (topic.latest) sink.write(topic.latest)
    if (event.method === 'HEAD' || this.options.shutdown.aborted || (spec.alive && !(await spec.alive()))) sink.end()
    return answer
  }

  /**
   * Sends messages that come from outside the storage (the request log) to
   * the streams of topic `key`, if any is open; `make` runs only then.
   *
   * @example
   * hub.publish(`account:${accountId}`, () => [{event: 'request', data: entry}])
   */
  publish(key: string, make: () => StreamMessageOut[]): void {
    const topic = this.#topics.get(key)
    if (!topic || topic.clients.size === 0) return
    const bytes = this.#render(make())
    for (const sink of topic.clients) sink.write(bytes)
  }

  #render(messages: StreamMessageOut[]): Buffer {
    this.#renders++
    return format(messages)
  }

  #createTopic(spec: TopicSpec): Topic {
    const {records, keepAliveMs = KEEP_ALIVE_MS} = this.options
    const clients = new Set<Sink>()
    const send = (bytes: Buffer) => {
      for (const sink of clients) sink.write(bytes)
    }
    const topic: Topic = {clients, ready: Promise.resolve(), close: () => {}}
    // subscribed before the snapshot is read: no change falls between them
    const unsubscribe = records.follow((changes) => {
      const messages = spec.select(changes)
      if (messages.length > 0) {
        const bytes = this.#render(messages)
        // a stream opened later was not there for what came before the state (a restore's `reset`)
        if (spec.snapshot) topic.latest = messages.length === 1 ? bytes : this.#render(messages.slice(-1))
        send(bytes)
      }
      // its client, reconnecting, hears why: the key is gone with the account (401)
      if (spec.ends?.(changes)) for (const sink of clients) sink.end()
    })
    if (spec.snapshot) {
      topic.ready = spec.snapshot().then((messages) => {
        topic.latest ??= this.#render(messages)
      })
    }
    const keepAlive = setInterval(() => send(PING), keepAliveMs).unref()
    topic.close = () => {
      clearInterval(keepAlive)
      unsubscribe()
      this.#topics.delete(spec.key)
    }
    this.#topics.set(spec.key, topic)
    return topic
  }
}

/** A stream on `serve`'s node response: `answer` resolves once the connection closes, and `release` has run. */
function nodeStream(res: ServerResponse, release: () => void): {sink: Sink; answer: Promise<void>} {
  res.writeHead(200)
  // headers go out now, not with the first message: a client knows it is subscribed before anything happens
  res.flushHeaders()
  const answer = new Promise<void>((resolve) =>
    res.once('close', () => {
      release()
      resolve()
    }),
  )
  const sink: Sink = {
    write(bytes) {
      if (res.writableEnded) return
      if (res.writableLength > MAX_BEHIND_BYTES) res.destroy()
      else res.write(bytes)
    },
    end: () => res.end(),
  }
  return {sink, answer}
}

/**
 * A stream as a web body, the answer itself. It ends when the reader cancels, or errors as a fetch's body does when
 * the request's signal aborts; `release` runs once. Its queue holds what the reader has not read yet, to the
 * bound a node response has.
 */
function webStream(release: () => void, request?: Request): {sink: Sink; answer: ReadableStream<Uint8Array>} {
  let open = true
  const close = () => {
    if (open) release()
    open = false
  }
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const answer = new ReadableStream<Uint8Array>(
    {start: (c) => void (controller = c), cancel: close},
    new ByteLengthQueuingStrategy({highWaterMark: MAX_BEHIND_BYTES}),
  )
  const fail = (reason: unknown) => {
    if (open) controller.error(reason)
    close()
  }
  const signal = request?.signal
  signal?.addEventListener('abort', () => fail(signal.reason), {once: true})
  const sink: Sink = {
    write(bytes) {
      if (!open) return
      if (controller.desiredSize! >= 0) controller.enqueue(bytes)
      else fail(new Error('the reader is too far behind'))
    },
    end() {
      if (open) controller.close()
      close()
    },
    // undici's request follows the caller's signal only while the request lives: a collected one never aborts
    holds: request,
  }
  return {sink, answer}
}
