import {describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
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
})
