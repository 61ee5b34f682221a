import {expect, it} from 'vitest'
import {EXIT_CODES, exitCodesOf} from '../../src/cli/exit-codes.js'

it("a command's own codes replace the shared meanings and add theirs, lowest first, a range by its first code", () => {
  const codes = exitCodesOf({exitCodes: {'3-125': "COMMAND's exit code.", 1: 'It could not start.', 130: 'Ctrl+C.'}})
  expect(codes).toEqual([
    ['0', EXIT_CODES[0]],
    ['1', 'It could not start.'],
    ['2', EXIT_CODES[2]],
    ['3-125', "COMMAND's exit code."],
    ['130', 'Ctrl+C.'],
  ])
  // a plugin's command states none
  expect(exitCodesOf({}).map(([code]) => code)).toEqual(['0', '1', '2'])
})
