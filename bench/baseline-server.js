// The push baseline: a bare node:http server that reads the body, parses the
// same JSON and answers with it, as small a server as can do the job.
import {createServer} from 'node:http'

const server = createServer((req, res) => {
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify(body))
  })
})

server.listen(0, '127.0.0.1', () =>
  process.send({port: /** @type {import('node:net').AddressInfo} */ (server.address()).port}),
)
process.on('disconnect', () => process.exit(0))
