// WireMock, Prism and json-server under the same load: what a stub, a mock and a file-backed REST server reach.
import {mkdir} from 'node:fs/promises'
import {join} from 'node:path'
import {api} from '../deliveries.js'
import {hasJava, startJsonServer, startPrism, startWireMock} from '../peers.js'
import {figure, progress} from '../report.js'
import {roundStats} from '../rounds.js'
import {CHECKS, JSON_SERVER_SECONDS, JVM_WARMUP_SECONDS, PEER_SECONDS, SHORT_WARMUP_SECONDS} from '../settings.js'
import {getFigures, getRuns} from './get.js'

/** Each peer's run, the figure's name and what the peer does (and does not) for a request. */
const PEERS = [
  ['WireMock PUT', 'WireMock stub PUT', 'one static stub answer: no state, no disk, no events, no validation'],
  ['WireMock GET', 'WireMock stub GET', 'the same stub'],
  [
    'Prism PUT',
    'Prism mock PUT',
    'validates the request against the OpenAPI document, answers its example: no state, no disk, no events',
  ],
  [
    'json-server PUT',
    'json-server v1 PUT',
    'keeps the body and rewrites its whole JSON file: no validation, no events',
  ],
]

/**
 * Starts the peers (WireMock when Java is there, Prism, json-server) next
 * to `big`, and adds their runs. A peer that cannot start is left out with
 * a note in `results.peers_skipped`.
 *
 * @type {import('../context.js').Group['runs']}
 */
async function peerRuns(bench, rounds) {
  await getRuns(bench, rounds)
  const {sets, results} = bench
  progress('starting the peers: WireMock, Prism, json-server')
  const check = (await api((await bench.need('big')).url, 'GET', `/checks/external/${sets.big.prefix}0`)).text
  sets.jsonServer.advance('replay', CHECKS)
  const dir = join(bench.root, 'peers')
  await mkdir(dir, {recursive: true})
  results.peers_skipped = {}
  const starts = {
    WireMock: (await hasJava())
      ? startWireMock(dir, check)
      : Promise.reject(new Error('no Java runtime (java -version)')),
    Prism: startPrism(dir),
    'json-server': startJsonServer(dir, sets.jsonServer.prefix, CHECKS),
  }
  /** @type {Record<string, import('../peers.js').Peer>} */
  const peers = {}
  for (const [name, start] of Object.entries(starts)) {
    try {
      const peer = await start
      peers[name] = peer
      rounds.stoppers.push(() => peer.stop())
    } catch (error) {
      results.peers_skipped[name] = error.message.split('\n')[0]
      progress(`skipping ${name}: ${results.peers_skipped[name]}`)
    }
  }
  const run = (name, peer, stream) => ({
    warmup: SHORT_WARMUP_SECONDS,
    name,
    url: peer.url,
    pid: peer.pid,
    stream,
    seconds: PEER_SECONDS,
    timeout: 30,
  })
  const {WireMock: wiremock, Prism: prism, 'json-server': jsonServer} = peers
  if (wiremock) {
    rounds.runs.push(
      {...run('WireMock PUT', wiremock, sets.wiremock.changes(wiremock.base)), warmup: JVM_WARMUP_SECONDS},
      run('WireMock GET', wiremock, sets.wiremock.gets(wiremock.base)),
    )
  }
  if (prism) rounds.runs.push(run('Prism PUT', prism, sets.prism.changes(prism.base)))
  // no warm-up for json-server: at tens of requests a second its run is its writes, not its compiler
  if (jsonServer) {
    const put = run('json-server PUT', jsonServer, sets.jsonServer.changes(jsonServer.base))
    rounds.runs.push({...put, warmup: 0, seconds: JSON_SERVER_SECONDS})
  }
}

/** @type {import('../context.js').Group} */
export default {
  name: 'peers',
  needs: ['big', 'big-filled', 'rounds'],
  runs: peerRuns,
  async run(bench) {
    const rounds = await bench.need('rounds')
    const {rate, ratio} = roundStats(rounds)
    if (!bench.has('get')) bench.figures.push(...getFigures(rounds))
    for (const [run, name, note] of PEERS) {
      if (!rounds[run]) continue
      const base = run.endsWith('GET') ? 'baseline GET' : 'baseline'
      bench.figures.push(figure(name, 'req/s', rate(run), ratio(run, base, {note})))
    }
    if (rounds['WireMock PUT']) {
      bench.figures.push(
        figure(
          'tablepay changing PUT vs WireMock stub PUT',
          'req/s',
          rate('changing'),
          ratio('changing', 'WireMock PUT'),
        ),
        figure('tablepay GET vs WireMock stub GET', 'req/s', rate('GET'), ratio('GET', 'WireMock GET')),
      )
    }
  },
}
