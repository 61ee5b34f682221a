import {connect} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {startScenarioReceiver} from '../../src/scenarios/receiver.js'
import {signPayload} from '../../src/webhooks/signature.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function started() {
  const receiver = await startScenarioReceiver()
  cleanup.push(() => receiver.close())
  receiver.trust('whsec_scenario_receiver_test')
  const deliver = (path = '/hooks') => {
    const body = '{"id":"evt_1"}'
    return fetch(receiver.url + path, {
      method: 'POST',
      body,
      headers: {'x-tablepay-signature': signPayload(body, 'whsec_scenario_receiver_test')},
    })
  }
  return {receiver, deliver}
}

describe("a scenario run's receiver", () => {
  it('answers 200 to a delivery a trusted secret signs, 400 to one it does not, and a status its path plays', async () => {
    const {receiver, deliver} = await started()
    expect((await deliver()).status).toBe(200)
    expect((await fetch(receiver.url, {method: 'POST', body: '{}'})).status).toBe(400)
    expect((await deliver('/hooks/503')).status).toBe(503)
  })

  it('lets a request cut off before its end go, and answers the next', async () => {
    const {receiver, deliver} = await started()
    const {port} = new URL(receiver.url)
    const socket = connect(Number(port), '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write('POST /hooks HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc')
    const closed = new Promise((resolve) => socket.once('close', resolve))
    socket.destroy()
    await closed
    expect((await deliver()).status).toBe(200)
  })
})
