import {afterEach, expect, it, vi} from 'vitest'
import {outputFor} from '../../src/cli/output.js'

afterEach(() => {
  vi.restoreAllMocks()
})

it('writes no colour to a stream that takes none, though stdout took it: a notice redirected to a file', () => {
  const written: string[] = []
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0)
  // stderr is no terminal here, as `2> tail.err`
  expect(process.stderr.isTTY).toBeFalsy()
  outputFor(false).notice('\u001b[2mWaiting for requests. Ctrl+C to stop.\u001b[22m')
  outputFor(false, process.stderr).emit({}, '\u001b[32mGET\u001b[39m /v1/checks 200')
  expect(written).toEqual(['Waiting for requests. Ctrl+C to stop.\n', 'GET /v1/checks 200\n'])
})
