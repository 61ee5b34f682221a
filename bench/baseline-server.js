// The baseline: a bare node:http server, as small a server as can do the
// job. A PUT reads the body, parses the same JSON and answers with it (and
// keeps that text by path); a GET answers the text kept for its path.
import {createServer} from 'node:http'

/** @type {Map<string, string>} */
const stored = new Map()

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    const text = stored.get(req.url)
    res.writeHead(text === undefined ? 404 : 200, {'content-type': 'application/json'}).end(text ?? '{}')
    return
  }
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    const text = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')))
    stored.set(req.url, text)
    res.writeHead(200, {'content-type': 'application/json'}).end(text)
  })
})

server.listen(0, '127.0.0.1', () =>
  process.send({port: /** @type {import('node:net').AddressInfo} */ (server.address()).port}),
)
process.on('disconnect', () => process.exit(0))
