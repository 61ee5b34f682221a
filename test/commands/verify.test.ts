import {readFileSync} from 'node:fs'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import Stripe from 'stripe'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, runCli, runCommand} from '../helpers/cli.js'
import {importGraph} from '../helpers/import-graph.js'

const SECRET = 'whsec_test_5f2b9c0e8a7d4b1c'
const PAYLOAD = 'fixtures/checks/open.json'
const BODY = readFileSync(join(ROOT, PAYLOAD), 'utf8')

// The CLI reads the real clock, so these headers are made relative to it.
// Past offsets only grow while the CLI starts; a future one needs a margin.
function stripeHeader(offsetSeconds = 0, secret = SECRET): string {
  return Stripe.webhooks.generateTestHeaderString({
    payload: BODY,
    secret,
    timestamp: Math.floor(Date.now() / 1000) + offsetSeconds,
  })
}

describe('verify', () => {
  let dir: string
  let reserialized: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tablepay-verify-'))
    reserialized = join(dir, 'reserialized.json')
    await writeFile(reserialized, JSON.stringify(JSON.parse(BODY)))
  })

  afterAll(() => rm(dir, {recursive: true, force: true}))

  it("exits 0 for a header Stripe's test helper made, and says so", async () => {
    const {code, stdout} = await runCli([
      'verify',
      '--secret',
      SECRET,
      '--header',
      stripeHeader(),
      '--payload',
      PAYLOAD,
    ])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^Valid signature, made \d{4}-\d\d-\d\dT.*s ago\)\.\n$/)
  })

  it('takes the secret from TABLEPAY_WEBHOOK_SECRET and the payload from stdin, byte for byte', async () => {
    const header = stripeHeader()
    const {code, stdout} = await runCommand(['verify', '-H', header, '--json'], {
      env: {TABLEPAY_WEBHOOK_SECRET: SECRET},
      input: BODY,
    })
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toEqual({valid: true, timestamp: Number(header.slice(2, header.indexOf(',')))})
  })

  it('takes --tolerance in whole seconds or as a duration, on the lean path too: 500 and 7m accept 400 s old, 6m not, 1.5s and past the widest are refused', async () => {
    const args = (tolerance: string) => [
      'verify',
      '-s',
      SECRET,
      '-H',
      stripeHeader(-400),
      '-p',
      PAYLOAD,
      '--tolerance',
      tolerance,
    ]
    for (const run of [runCommand, runCli]) {
      expect((await run(args('500'))).code).toBe(0)
      expect((await run(args('7m'))).code).toBe(0)
      expect((await run(args('6m'))).code).toBe(1)
      const fraction = await run(args('1.5s'))
      expect(fraction.code).toBe(2)
      expect(fraction.stderr).toContain('--tolerance: "1.5s" is not whole seconds: write it like 300, 45s, 5m or 1h')
      // past the widest tolerance, its limit in seconds: as days it would read 104249991374d7h36m31s
      const huge = await run(args('99999999999999999999'))
      expect(huge.code).toBe(2)
      expect(huge.stderr.replaceAll(/\s*\n\s*›?\s*/g, ' ')).toContain(
        '--tolerance: "99999999999999999999" is longer than 9007199254740991 seconds, the most a number holds exactly',
      )
    }
  })

  it('accepts a signature made past the last time a Date holds, saying its t, on the lean path too', async () => {
    const t = '8640000000001'
    const header = (await runCli(['sign', '-s', SECRET, '-p', PAYLOAD, '-t', t])).stdout.trim()
    const args = ['verify', '-s', SECRET, '-H', header, '-p', PAYLOAD, '--tolerance', String(Number.MAX_SAFE_INTEGER)]
    for (const {code, stdout} of [await runCommand(args), await runCli(args)]) {
      expect([code, stdout]).toEqual([0, expect.stringContaining(`Valid signature, made at t=${t}`)])
    }
  })

  const refusals: [string, () => string[], string][] = [
    ['a tampered body', () => ['-H', stripeHeader(), '-p', 'fixtures/checks/updated.json'], 'signature_mismatch'],
    [
      'a re-serialized body (the raw-body pitfall)',
      () => ['-H', stripeHeader(), '-p', reserialized],
      'signature_mismatch',
    ],
    ['the wrong secret', () => ['-H', stripeHeader(0, 'whsec_someone_else'), '-p', PAYLOAD], 'signature_mismatch'],
    ['a missing header', () => ['-p', PAYLOAD], 'no_signature'],
    ['a malformed header', () => ['-H', 'sha256=abc', '-p', PAYLOAD], 'malformed_header'],
    ['a signature 301 s old', () => ['-H', stripeHeader(-301), '-p', PAYLOAD], 'timestamp_outside_tolerance'],
    // more than 300 s ahead when verify runs, whatever its start-up takes: the library tests pin the exact 301 s boundary
    [
      'a signature 311 s in the future',
      () => ['-H', stripeHeader(301 + 10), '-p', PAYLOAD],
      'timestamp_outside_tolerance',
    ],
  ]

  it.each(refusals)('refuses %s: exit 1, the reason code and what to do next', async (_, args, reason) => {
    const {code, stdout, stderr} = await runCommand(['verify', '-s', SECRET, ...args()])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain(`Code: ${reason}`)
    expect(stderr).toContain('Try this:')
  })

  it.each(refusals)(
    'with --json, refuses %s with {valid: false, reason, message} and exit 1',
    async (_, args, reason) => {
      const {code, stdout} = await runCommand(['verify', '-s', SECRET, '--json', ...args()])
      expect(code).toBe(1)
      expect(JSON.parse(stdout)).toEqual({valid: false, reason, message: expect.any(String)})
    },
  )

  it('names a payload file it cannot read, and what to do, on the lean path too', async () => {
    const args = ['verify', '-s', SECRET, '-H', stripeHeader(), '-p', join(ROOT, 'no-such-payload.json'), '--json']
    for (const {code, stdout} of [await runCommand(args), await runCli(args)]) {
      // a wrong command line (2), never taken for a signature that is not valid (1)
      expect(code).toBe(2)
      expect(JSON.parse(stdout).error).toMatchObject({
        code: 'unreadable_input',
        suggestions: [expect.stringContaining('Check the path')],
      })
    }
  })

  it('says an empty --payload is empty, on the lean path too', async () => {
    const args = ['verify', '-s', SECRET, '-H', stripeHeader(), '-p', '', '--json']
    for (const {code, stdout} of [await runCommand(args), await runCli(args)]) {
      expect(code).toBe(2)
      expect(JSON.parse(stdout).error).toMatchObject({
        code: 'unreadable_input',
        message: expect.stringContaining('is empty (is a variable unset?)'),
      })
    }
  })

  it('without a secret, exits 2 (a wrong command line) and says where to put one', async () => {
    const {code, stderr} = await runCommand(['verify', '-H', stripeHeader(), '-p', PAYLOAD])
    expect(code).toBe(2)
    expect(stderr).toContain('TABLEPAY_WEBHOOK_SECRET')
    expect(stderr).toContain('missing_secret')
    // where a secret is found again: listen's is not only in the answer that made its endpoint
    expect(stderr).toContain('listen --print-secret')
  })

  it('without a secret, exits 2 with the error body under --json, on the lean path too', async () => {
    const args = ['verify', '-H', stripeHeader(), '-p', PAYLOAD, '--json']
    for (const {code, stdout} of [await runCommand(args), await runCli(args)]) {
      expect(code).toBe(2)
      expect(JSON.parse(stdout).error).toMatchObject({
        code: 'missing_secret',
        message: expect.stringContaining('--secret'),
      })
    }
    const lean = await runCli(args.slice(0, -1))
    expect(lean.code).toBe(2)
    expect(lean.stderr).toContain('missing_secret')
  })

  it('stops reading a payload past 64 MiB, one that never ends too (/dev/zero), and says what to pass', async () => {
    const {code, stderr} = await runCli(['verify', '-s', SECRET, '-H', stripeHeader(), '-p', '/dev/zero'])
    expect(code).toBe(2)
    expect(stderr).toContain('/dev/zero holds more than 64 MiB')
  })

  it('points out an empty payload', async () => {
    const {code, stderr} = await runCommand(['verify', '-s', SECRET, '-H', stripeHeader()])
    expect(code).toBe(1)
    expect(stderr).toContain('The payload was empty')
  })
})

describe('start-up: what the pure local tools load', () => {
  // Start-up time is the point (DESIGN, CLI): @oclif/core alone is most of it, so nothing else heavy may come along.
  it.each(['dist/commands/verify.js', 'dist/commands/sign.js'])(
    '%s loads @oclif/core and no client, server, storage or validation',
    (entry) => {
      const {files, packages} = importGraph(entry)
      expect(packages).toEqual(['@oclif/core'])
      const heavy = (f: string) => /^(server|store|domain)\/|^client\/(client|config|index)\.js$/.test(f)
      // of the domain, only the parser of durations (--tolerance 5m) and how its errors quote a value, which import nothing
      expect(files.filter((f) => heavy(f) && f !== 'domain/duration.js' && f !== 'domain/quoted-input.js')).toEqual([])
    },
  )

  it('the library entry loads only node built-ins', () => {
    const {files, packages} = importGraph('dist/index.js')
    expect(packages).toEqual([])
    // and the brand of its error class, which imports nothing either
    expect(files).toEqual(['index.js', 'shared/error-brand.js', 'webhooks/signature.js'])
  })
})
