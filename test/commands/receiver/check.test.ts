import {createServer} from 'node:net'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {runReceiverSuite} from '../../../src/cli/receiver-check/suite.js'
import {Check} from '../../../src/domain/schemas.js'
import {ROOT, runCommand} from '../../helpers/cli.js'
import {spawnReceiver, startReceiver} from '../../helpers/receiver.js'

const SECRET = 'whsec_test_receiver_check_1234'
const ALL_CASES = [
  'valid',
  'raw_body',
  'two_signatures',
  'duplicate',
  'older_state',
  'older_update',
  'tampered_body',
  'wrong_secret',
  'missing_header',
  'malformed_header',
  'timestamp_past',
  'timestamp_future',
]
const REJECTED = ALL_CASES.slice(6)

const running: {stop(): void}[] = []
afterEach(() => {
  for (const receiver of running.splice(0)) receiver.stop()
})

/** Starts a receiver script as a user would (`PORT=0 node file`) and resolves with the URL it prints. */
function startScript(file: string): Promise<string> {
  const receiver = spawnReceiver(process.execPath, [join(ROOT, file)], SECRET)
  running.push(receiver)
  return receiver.url
}

const check = (url: string, args: string[] = []) =>
  runCommand(['receiver', 'check', '--forward-to', url, ...args], {env: {TABLEPAY_WEBHOOK_SECRET: SECRET}})
const failedCases = (stdout: string) =>
  (JSON.parse(stdout).cases as {id: string; passed: boolean}[]).filter((c) => !c.passed).map((c) => c.id)

describe('receiver check', () => {
  it('passes the example receiver (examples/receivers/node-http.mjs) on every case: exit 0 and a table of passes', async () => {
    const url = await startScript('examples/receivers/node-http.mjs')
    const {code, stdout} = await check(url)
    expect(code).toBe(0)
    const rows = stdout.trim().split('\n')
    expect(rows[0]).toMatch(/^RESULT\s+CASE\s+EXPECTED\s+REASON$/)
    expect(rows.slice(1, -1)).toHaveLength(ALL_CASES.length)
    for (const row of rows.slice(1, -1)) expect(row).toMatch(/^pass /)
    expect(rows.at(-1)).toBe(`All ${ALL_CASES.length} cases passed.`)
  })

  it('with --json reports every case with its answer', async () => {
    const url = await startScript('examples/receivers/node-http.mjs')
    const {code, stdout} = await check(url, ['--json', '--secret', SECRET])
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report).toMatchObject({url, passed: true})
    expect(report.cases.map((c: {id: string}) => c.id)).toEqual(ALL_CASES)
    for (const c of report.cases) {
      expect(c).toEqual({
        id: c.id,
        title: expect.any(String),
        expected: REJECTED.includes(c.id) ? 'rejected' : 'accepted',
        status_code: REJECTED.includes(c.id) ? 400 : 200,
        error: REJECTED.includes(c.id) ? 'receiver answered 400' : null,
        duration_ms: expect.any(Number),
        passed: true,
        reason: expect.any(String),
      })
    }
  })

  const broken: [string, string, string[]][] = [
    ['parses the JSON before verifying (re-serializes)', 'parses-first.mjs', ['raw_body']],
    ['ignores the timestamp', 'ignores-timestamp.mjs', ['timestamp_past', 'timestamp_future']],
    ['verifies only when a signature header is present', 'accepts-unsigned.mjs', ['missing_header']],
    [
      'answers 409 to a duplicate or an older state',
      'refuses-redelivery.mjs',
      ['duplicate', 'older_state', 'older_update'],
    ],
    ['verifies only the first v1 signature', 'checks-first-v1.mjs', ['two_signatures']],
    ['answers 500 on a duplicate', 'fails-on-duplicate.mjs', ['duplicate']],
    ['refuses an event older than the last it saw', 'refuses-older.mjs', ['older_state', 'older_update']],
  ]

  it.each(broken)(
    'catches a receiver that %s: exit 1, exactly those cases fail, each with its reason',
    async (_, file, failing) => {
      const url = await startScript(`test/fixtures/receivers/${file}`)
      const human = await check(url)
      expect(human.code).toBe(1)
      expect(human.stderr).toContain('Code: receiver_nonconformant')
      expect(human.stderr).toContain(`failed: ${failing.join(', ')}.`)
      expect(human.stdout.split('\n').filter((row) => row.startsWith('FAIL'))).toHaveLength(failing.length)

      const json = await check(url, ['--json'])
      expect(json.code).toBe(1)
      expect(failedCases(json.stdout)).toEqual(failing)
      for (const c of JSON.parse(json.stdout).cases.filter((c: {passed: boolean}) => !c.passed))
        expect(c.reason).toMatch(/^(accepted with|answered) \d{3} .*: /)
    },
  )

  it('cannot tell a receiver that compares signatures with !== from a correct one: timing is not observable over HTTP', async () => {
    const url = await startScript('test/fixtures/receivers/compares-with-equals.mjs')
    const {code, stdout} = await check(url, ['--json'])
    expect(code).toBe(0)
    expect(failedCases(stdout)).toEqual([])
  })

  it('sends what the dispatcher sends: check events as the API renders them, with its headers', async () => {
    const receiver = await startReceiver(() => 200)
    try {
      const {code, stdout} = await check(receiver.url, ['--json'])
      // a receiver that accepts everything fails exactly the cases it should refuse
      expect(code).toBe(1)
      expect(failedCases(stdout)).toEqual(REJECTED)
      for (const {headers, body} of receiver.received) {
        const event = JSON.parse(body)
        expect(headers['content-type']).toBe('application/json')
        expect(headers['user-agent']).toBe('tablepay-webhooks/1')
        expect(headers['x-tablepay-event-id']).toBe(event.id)
        expect(headers['x-tablepay-event-type']).toBe(event.type)
        expect(['check.created', 'check.updated']).toContain(event.type)
        expect(event).toMatchObject({
          id: expect.stringMatching(/^evt_/),
          object: 'event',
          created_at: expect.any(String),
        })
        expect(() => Check.parse(event.data)).not.toThrow()
      }
      // the duplicate: the same bytes again, as delivery attempt 2
      const second = receiver.received.find((r) => r.headers['x-tablepay-delivery-attempt'] === '2')!
      expect(receiver.received.filter((r) => r.body === second.body)).toHaveLength(2)
    } finally {
      await receiver.close()
    }
  })

  it('says so when nothing listens at the URL', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const {port} = probe.address() as {port: number}
        probe.close(() => resolve(port))
      })
    })
    const {code, stderr} = await check(`http://127.0.0.1:${port}/webhooks`)
    expect(code).toBe(1)
    expect(stderr).toContain('No receiver answered at')
    expect(stderr).toContain('Nothing listens there: start your receiver. Then run this again.')
    expect(stderr).toContain('ECONNREFUSED')
    expect(stderr).toContain('Code: receiver_unreachable')
  })

  it('stops after the first case when the receiver never answers it: one wait, not one per case', async () => {
    const receiver = await startReceiver(() => 'hang')
    try {
      const results = await runReceiverSuite(receiver.url, SECRET, {timeoutMs: 200})
      expect(results).toEqual([expect.objectContaining({id: 'valid', status_code: null, passed: false})])
      expect(receiver.received).toHaveLength(1)
    } finally {
      await receiver.close()
    }
  })

  it('without --forward-to, exits 2 asking for it in the words listen and webhooks create use', async () => {
    const {code, stderr} = await runCommand(['receiver', 'check', '--secret', 'whsec_any'])
    expect(code).toBe(2)
    expect(stderr).toContain("Missing the receiver's URL: pass --forward-to URL.")
  })

  it('without a secret, exits 2 (a wrong command line: nothing was sent) and says where to put one', async () => {
    const {code, stderr} = await runCommand(['receiver', 'check', '--forward-to', 'http://127.0.0.1:9/webhooks'])
    expect(code).toBe(2)
    expect(stderr).toContain('TABLEPAY_WEBHOOK_SECRET')
    expect(stderr).toContain('Code: missing_secret')
  })
})
