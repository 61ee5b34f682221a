import {afterAll, beforeAll, expect, test} from 'vitest'
import {
  drawnRequests,
  type GeneratedRequest,
  requestsFrom,
  told,
  wrongAnswer,
  wrongAnswers,
} from '../helpers/generated-requests.js'
import {doc} from '../helpers/openapi-doc.js'
import {mulberry32} from '../helpers/random.js'
import {rawRequest} from '../helpers/raw-http.js'
import {OTHER_KEY, startTestServer, type TestServer, WRITE_KEY} from '../helpers/simulator.js'
import {openStream} from '../helpers/sse.js'
import {checkWith} from '../helpers/checks.js'

let sim: TestServer
beforeAll(async () => {
  sim = await startTestServer()
})
afterAll(() => sim.close())

/** Requests in the run: every operation gets about ten. */
const REQUESTS = 1000

test("requests drawn for every route, the document's and the table page's, of every shape, get no 5xx, and each error has the documented body", async () => {
  expect(await wrongAnswers([sim.url], 20_261_130, REQUESTS)).toEqual([])
  expect((await sim.api('GET', '/v1/health')).status).toBe(200)
})

test('four streams of drawn requests at once get no 5xx either: no route fails on another running beside it', async () => {
  const streams = [1, 2, 3, 4].map((n) => wrongAnswers([sim.url], 20_261_130 + n, REQUESTS / 4, {faults: false}))
  expect((await Promise.all(streams)).flat()).toEqual([])
})

test('resets and pushes beside four streams of drawn requests get no 5xx; the live stream stays open, each message whole, with an event for each push', async () => {
  const live = await openStream(`${sim.url}/v1/sim/stream`, {authorization: `Bearer ${WRITE_KEY}`})
  const [resets, pushed]: [number[], string[]] = [[], []]
  const reset = async (i: number) => i % 25 === 0 && resets.push((await sim.api('POST', '/v1/sim/reset')).status)
  const push = async (i: number) => {
    if (i % 10 !== 0) return
    const answer = await sim.api('PUT', `/v1/checks/external/live-${i}`, {body: checkWith([['a', 1, 100]])})
    pushed.push(answer.status === 201 ? answer.body.id : `${answer.status}: ${answer.text}`)
  }
  const before = [reset, push, undefined, undefined]
  const streams = before.map((each, n) =>
    wrongAnswers([sim.url], 20_261_300 + n, REQUESTS / 4, {faults: false, before: each}),
  )
  expect((await Promise.all(streams)).flat()).toEqual([])
  expect(resets).toEqual(Array(REQUESTS / 4 / 25).fill(200))
  // a change made last is on the stream once every change before it is
  const last = await sim.api('PUT', '/v1/checks/external/last', {body: checkWith([['a', 1, 100]])})
  const text = await live.until((seen) => seen.includes(`"id":"${last.body.id}"`))
  live.close()
  const messages = text.split('\n\n').slice(0, -1)
  expect(
    messages.filter((m) => !/^event: (event|delivery|endpoint_deleted|request|reset|ping)\ndata: .*$/.test(m)),
  ).toEqual([])
  const events = messages.filter((m) => m.startsWith('event: event\n')).map((m) => JSON.parse(m.slice(19)))
  const sent = new Set(events.map((event) => event.data.id))
  expect(pushed.filter((id) => !sent.has(id))).toEqual([])
  expect(pushed.length).toBe(REQUESTS / 4 / 10)
})

/** A drawn `POST /v1/sim/faults`, its hold cut under 100 ms so that the requests it strikes go on. */
function drawnFault(next: () => GeneratedRequest): GeneratedRequest & {resets: boolean} {
  for (;;) {
    const request = next()
    if (request.method !== 'POST' || request.path !== '/v1/sim/faults') continue
    const body = parsed(request.body)
    if (typeof body?.delay_ms === 'number') body.delay_ms %= 100
    return {...request, body: body ? JSON.stringify(body) : request.body, resets: body?.reset === true}
  }
}

const parsed = (text = '') => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

test('faults made beside three streams of drawn requests strike them only as faults: a 5xx carries its X-Tablepay-Fault, a lost connection comes while a resetting one lives', async () => {
  // a fault lives from its request until the answer that deletes it, while the others answer 8 requests; the first
  // comes once each of them has made the records it addresses
  let [answered, ready, resetting, resettingMade, done] = [0, 0, 0, 0, false]
  let wake = () => {}
  const until = async (holds: () => boolean) => {
    while (!done && !holds()) await new Promise<void>((resolve) => (wake = resolve))
  }
  const stream = (n: number) => {
    let [livingAtStart, madeAtStart] = [0, 0]
    const before = async (i: number) => {
      ;[answered, ready] = [answered + 1, ready + (i === 0 ? 1 : 0)]
      wake()
      ;[livingAtStart, madeAtStart] = [resetting, resettingMade]
    }
    const reset = (request: GeneratedRequest) =>
      livingAtStart + resetting > 0 || resettingMade !== madeAtStart
        ? undefined
        : `a connection lost with no resetting fault: ${request.method} ${request.path}`
    return wrongAnswers([sim.url], 20_261_400 + n, REQUESTS / 4, {faults: false, before, reset})
  }
  const others = Promise.all([1, 2, 3].map(stream)).finally(() => {
    done = true
    wake()
  })
  await until(() => ready === 3)
  const next = requestsFrom(doc, mulberry32(20_261_404), () => [])
  const wrong: string[] = []
  let struck = 0
  while (!done) {
    const fault = drawnFault(next)
    if (fault.resets) [resetting, resettingMade] = [resetting + 1, resettingMade + 1]
    const headers = {authorization: `Bearer ${WRITE_KEY}`, ...fault.headers}
    const answer = await rawRequest(sim.url, 'POST', fault.path, {headers, body: fault.body})
    const said = wrongAnswer(fault, answer)
    if (said) wrong.push(said)
    if (answer.status === 201) {
      const at = answered + 8
      await until(() => answered >= at)
      // one fault lives at a time: gone, or with fewer strikes left than it had, it struck
      const [living] = (await sim.api('GET', '/v1/sim/faults')).body.data
      if (!living || (living.times !== null && living.remaining < living.times)) struck++
      await sim.api('DELETE', '/v1/sim/faults')
    }
    if (fault.resets) resetting--
  }
  expect([...wrong, ...(await others).flat()]).toEqual([])
  expect(struck).toBeGreaterThan(5)
  expect((await sim.api('GET', '/v1/health')).status).toBe(200)
})

/** A write that names its record in the path; a check's is put by its POS id, which each account has its own of. */
const writesTo = ({method, path, addressed}: GeneratedRequest) =>
  addressed && method !== 'GET' && method !== 'HEAD' && !path.startsWith('/v1/checks/external/')

test("one account's records, named in the path with another account's key, are 404 to read and to write", async () => {
  const {next, send} = await drawnRequests([sim.url], 20_261_201)
  const shown: string[] = []
  let reads = 0
  for (let i = 0; i < REQUESTS; i++) {
    const request = next()
    const read = request.method === 'GET' || request.method === 'HEAD'
    // the other account's write first: one it is refused leaves the record for the write key's
    if (writesTo(request)) {
      const other = await send(request, OTHER_KEY)
      if (other.status < 300) shown.push(told(request, other))
    }
    const own = await send(request)
    if (!read || !request.addressed || own.status >= 300) continue
    reads++
    const other = await send(request, OTHER_KEY)
    if (other.status !== 404) shown.push(told(request, other))
  }
  expect(reads).toBeGreaterThan(50)
  expect(shown).toEqual([])
})

/**
 * What a refused write must leave as it was, read through the API: the checks (with what guests claimed and paid),
 * the snapshots, the faults and the clock's offset. Deliveries and endpoints are left out: their attempts are
 * recorded in the background.
 */
async function state(): Promise<string> {
  const read = async (path: string) => (await sim.api('GET', path)).text
  const clock = (await sim.api('GET', '/v1/sim/clock')).body
  const lists = await Promise.all(['/v1/checks?limit=100', '/v1/sim/snapshots', '/v1/sim/faults'].map(read))
  return JSON.stringify([...lists, clock.offset_seconds, clock.time_scale])
}

test('a drawn write refused with a 4xx changes nothing that is read back: no refusal is half applied', async () => {
  const {next, send} = await drawnRequests([sim.url], 20_261_202)
  const changed: string[] = []
  let before = await state()
  for (let i = 0; i < REQUESTS; i++) {
    const request = next()
    if (request.method === 'GET' || request.method === 'HEAD') continue
    const answer = await send(request)
    const after = await state()
    if (answer.status >= 400 && answer.status < 500 && after !== before) changed.push(told(request, answer))
    before = after
  }
  expect(changed).toEqual([])
})
