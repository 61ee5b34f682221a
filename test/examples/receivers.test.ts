import {randomUUID} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import {signPayload} from '../../src/webhooks/signature.js'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {ROOT, runCommand, WRITE_KEY} from '../helpers/cli.js'
import {spawnReceiver} from '../helpers/receiver.js'

const SECRET = 'whsec_test_receivers_in_every_language'
const example = (file: string) => join(ROOT, 'examples', 'receivers', file)

/** Each example as its header comment runs it: one process per language for the whole file. */
const RECEIVERS = {
  'node-http.mjs': [process.execPath, example('node-http.mjs')],
  'python-http.py': ['python3', example('python-http.py')],
  // C2 and the parallel collector cost the JVM ~0.5 s of CPU at start and gain nothing over a few dozen requests
  'Receiver.java': ['java', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', example('Receiver.java')],
}

let server: ApiServer
let client: TablepayClient
const started = new Map<string, ReturnType<typeof spawnReceiver>>()
beforeAll(async () => {
  // all at once: the JVM's start is the longest wait of the file
  for (const [file, [command, ...args]] of Object.entries(RECEIVERS))
    started.set(file, spawnReceiver(command!, args, SECRET))
  server = await startApiServer()
  client = new TablepayClient({url: server.url, apiKey: WRITE_KEY})
})
afterAll(async () => {
  await Promise.all([server?.stop(), ...Array.from(started.values(), (receiver) => receiver.stop())])
})

/** A signed delivery of `body` as the dispatcher sends it; resolves with the receiver's status and text. */
async function deliver(url: string, body: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {'content-type': 'application/json', 'x-tablepay-signature': signPayload(body, SECRET)},
    body,
  })
  return [response.status, await response.text()]
}

describe.each(Object.keys(RECEIVERS))('examples/receivers/%s', (file) => {
  let url: string
  beforeAll(async () => {
    url = await started.get(file)!.url
  })

  it('passes every case of receiver check', async () => {
    const {code, stdout} = await runCommand(['receiver', 'check', '--forward-to', url, '--json'], {
      env: {TABLEPAY_WEBHOOK_SECRET: SECRET},
    })
    const failed = JSON.parse(stdout).cases.filter((c: {passed: boolean}) => !c.passed)
    expect(failed).toEqual([])
    expect(code).toBe(0)
  })

  it("answers a real server's signed ping 200 ok, during a rotation too (its secret signs second), and refuses another secret's", async () => {
    const ping = async (secret: string, rotate = false) => {
      const endpoint = await client.createWebhookEndpointWithSecret({url, secret, event_types: ['check.created']})
      if (rotate) await client.rotateWebhookSecret(endpoint.id)
      const result = await client.testWebhookEndpoint(endpoint.id)
      await client.deleteWebhookEndpoint(endpoint.id)
      return [result.status_code, result.response_body]
    }
    expect(await ping(SECRET)).toEqual([200, 'ok'])
    expect(await ping(SECRET, true)).toEqual([200, 'ok'])
    expect(await ping('whsec_not_the_receivers_own_secret')).toEqual([400, 'signature_mismatch'])
  })

  it('answers a redelivered event 200 duplicate, and a signed body that is not JSON 400 invalid_json', async () => {
    const event = JSON.stringify({id: `evt_${randomUUID()}`, object: 'event', type: 'check.created', data: {}})
    expect(await deliver(url, event)).toEqual([200, 'ok'])
    expect(await deliver(url, event)).toEqual([200, 'duplicate'])
    expect(await deliver(url, '{"id": "evt_')).toEqual([400, 'invalid_json'])
  })

  it('answers anything but a POST 405, Allow: POST', async () => {
    const response = await fetch(url)
    expect([response.status, response.headers.get('allow')]).toEqual([405, 'POST'])
  })
})

/** The README's block of `language` under "Verify in any language", split at blank lines. */
function readmeBlocks(language: string): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('### Verify in any language'))
  const code = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section)?.[1]
  if (code === undefined) throw new Error(`README.md shows no ${language} under "Verify in any language"`)
  return code.trim().split(/\n\s*\n/)
}

it.each([
  ['python', 'python-http.py'],
  ['java', 'Receiver.java'],
])("README's %s verifier is the code of examples/receivers/%s, block for block and in order", (language, file) => {
  const source = readFileSync(example(file), 'utf8')
  let from = 0
  for (const block of readmeBlocks(language)) {
    const at = source.indexOf(`\n${block}\n`, from - 1)
    expect(at, `not in ${file} after its character ${from}:\n${block}`).toBeGreaterThanOrEqual(0)
    from = at + block.length + 2
  }
})
