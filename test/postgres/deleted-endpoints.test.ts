import {describe, expect, it} from 'vitest'
import type {RunningServer} from '../../src/server/start.js'
import {startCommand} from '../helpers/cli.js'
import {call, WRITE_KEY} from '../helpers/simulator.js'
import {useTwoInstances} from '../helpers/two-instances.js'

// two instances of one sandbox: a teammate deletes through a the endpoint a command follows on b
let a: RunningServer
let b: RunningServer
useTwoInstances((servers) => ({a, b} = servers))

const onB = () => ({TABLEPAY_URL: `${b.url}/v1`, TABLEPAY_API_KEY: WRITE_KEY})
const deleteThroughA = async (id: string) =>
  expect((await call(a.url, 'DELETE', `/v1/webhook-endpoints/${id}`)).status).toBe(200)

describe('an endpoint deleted through another instance', () => {
  it('ends deliveries tail --endpoint on b with not_found', async () => {
    const endpoint = await call(a.url, 'POST', '/v1/webhook-endpoints', {body: {url: 'http://127.0.0.1:9/tailed'}})
    const tail = startCommand(['deliveries', 'tail', '--endpoint', endpoint.body.id], {env: onB()})
    try {
      await tail.waitForStderr('Waiting for delivery attempts')
      await deleteThroughA(endpoint.body.id)
      const {code, stderr} = await tail.done
      expect(code).toBe(1)
      expect(stderr).toContain(`Endpoint ${endpoint.body.id} was deleted while this ran: no attempt to it can come.`)
      expect(stderr).toContain('Code: not_found')
    } finally {
      await tail.interrupt()
    }
  })

  it('ends listen on b with endpoint_deleted, leaving nothing to remove', async () => {
    const listen = startCommand(['listen', '--json', '--forward-to', 'http://127.0.0.1:9/listened'], {env: onB()})
    try {
      const ready = JSON.parse((await listen.waitForOutput('\n')).split('\n')[0]!)
      await deleteThroughA(ready.endpoint_id)
      const {code, stdout, stderr} = await listen.done
      expect(code).toBe(1)
      expect(JSON.parse(stdout.trimEnd().split('\n').at(-1)!).error).toMatchObject({code: 'endpoint_deleted'})
      expect(stderr).not.toMatch(/Removed endpoint|Could not remove/)
    } finally {
      await listen.interrupt()
    }
  })
})
