import {describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import {resolveClientConfig} from '../../src/client/config.js'
import {TablepayConfigError} from '../../src/client/errors.js'

const build = (url: string, apiKey: string) => () => new TablepayClient({url, apiKey})

describe('a client made with what no request can carry', () => {
  it('refuses a URL with a user name or password, or of another scheme, as invalid_url', () => {
    const urls = ['http://user:secret@127.0.0.1:4747', 'http://user@127.0.0.1:4747', '127.0.0.1:4747', undefined]
    for (const url of urls as string[]) {
      expect(build(url, 'tp_test_x')).toThrow(TablepayConfigError)
      expect(build(url, 'tp_test_x')).toThrow(expect.objectContaining({code: 'invalid_url'}))
    }
    expect(build('http://user:secret@127.0.0.1:4747', 'tp_test_x')).toThrow(
      'The URL "http://user:secret@127.0.0.1:4747" holds a user name or password, which no request can carry',
    )
  })

  it('refuses a URL holding a space, a control or an invisible character, naming it and where it is', () => {
    // `/v1\r`, as a file written on Windows leaves it: parsed, it kept its /v1, and requests went to /v1/v1/…
    expect(build('http://127.0.0.1:4747/v1\r', 'tp_test_x')).toThrow(
      expect.objectContaining({
        code: 'invalid_url',
        // quoted escaped: printed, a \r would take the line back to its start and hide the message's beginning
        message: expect.stringContaining('The URL "http://127.0.0.1:4747/v1\\r" holds "\\r" at character 25'),
      }),
    )
    // dropped by the parser, or an invisible one it would encode (a no-break space pasted from a page)
    const stray = ['/v1 ', '\n', '\u0085', '/v1\u00a0', '/v1\u2028', '\ufeff'].map(
      (end) => `http://127.0.0.1:4747${end}`,
    )
    for (const url of [...stray, ' http://127.0.0.1:4747', 'http://127.0.\t0.1'])
      expect(build(url, 'tp_test_x')).toThrow(expect.objectContaining({code: 'invalid_url'}))
    // what users pass holds none: IPv6, a path, percent-encoding, a name in another script
    for (const url of [
      'http://[::1]:4747/v1/',
      'https://sandbox.example:8443/tp/v1',
      'http://h/a%20b',
      'http://bücher.example',
    ])
      expect(build(url, 'tp_test_x')).not.toThrow()
  })

  it('refuses an empty key, or one with a character no key holds, naming it and where it is', () => {
    expect(build('http://127.0.0.1:4747', 'tp_test_x\r')).toThrow(
      expect.objectContaining({code: 'invalid_api_key', message: expect.stringContaining('"\\r" at character 10')}),
    )
    // a JavaScript caller's unset variable
    expect(build('http://127.0.0.1:4747', undefined as unknown as string)).toThrow(
      expect.objectContaining({code: 'invalid_api_key', message: expect.stringContaining('The API key is missing')}),
    )
    for (const key of ['', 'tp test', 'tp_\n', 'tp_é', 'tp_😀', 5 as unknown as string])
      expect(build('http://127.0.0.1:4747', key)).toThrow(expect.objectContaining({code: 'invalid_api_key'}))
    expect(build('https://sandbox.example/v1/', 'tp_test_demo_write')).not.toThrow()
  })

  it('refuses a timeout no timer can wait, instead of timing out at once or throwing a RangeError per call', () => {
    const withTimeout = (timeoutMs: number) => () =>
      new TablepayClient({url: 'http://127.0.0.1:4747', apiKey: 'tp_test_demo_write', timeoutMs})
    for (const timeoutMs of [2 ** 31, 30 * 24 * 3600 * 1000, Infinity, 1.5, -1, NaN])
      expect(withTimeout(timeoutMs)).toThrow(
        expect.objectContaining({code: 'invalid_timeout', constructor: TablepayConfigError}),
      )
    for (const timeoutMs of [0, 1, 2 ** 31 - 1]) expect(withTimeout(timeoutMs)).not.toThrow()
  })
})

describe('resolveClientConfig', () => {
  it('finds the URL and key, and keeps the other options it was given', async () => {
    const fetch = () => Promise.resolve(new Response())
    const given = {timeoutMs: 5000, headers: {'x-tablepay-client': 'cli-tail'}, fetch}
    const env = {TABLEPAY_URL: 'http://127.0.0.1:4747', TABLEPAY_API_KEY: 'tp_test_demo_write'}
    expect(await resolveClientConfig(given, env)).toEqual({
      ...given,
      url: env.TABLEPAY_URL,
      apiKey: 'tp_test_demo_write',
    })
  })
})
