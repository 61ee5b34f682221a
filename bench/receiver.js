// A loopback webhook receiver in its own process: answers 200 and counts.
// The bench asks it (over IPC) to report when it has received `n` requests;
// with `hold` it keeps answers back until `release`, so that a backlog can
// build up in the dispatcher before the clock starts.
import {createServer} from 'node:http'

let count = 0
let target = Infinity
let held = undefined

const answer = (res) => res.writeHead(200, {'content-type': 'text/plain'}).end('ok')

const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    count++
    if (count === target) process.send({reached: count})
    if (held) held.push(res)
    else answer(res)
  })
})

process.on('message', (/** @type {{reset?: {target: number, hold?: boolean}, release?: boolean}} */ message) => {
  if (message.reset) {
    count = 0
    target = message.reset.target
    held = message.reset.hold ? [] : undefined
    process.send({reset: true})
  }
  if (message.release) {
    const queue = held ?? []
    held = undefined
    process.send({released: count})
    for (const res of queue) answer(res)
  }
})

server.listen(0, '127.0.0.1', () =>
  process.send({port: /** @type {import('node:net').AddressInfo} */ (server.address()).port}),
)
process.on('disconnect', () => process.exit(0))
