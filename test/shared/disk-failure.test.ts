import {expect, it} from 'vitest'
import {diskFailure} from '../../src/shared/disk-failure.js'

const errno = (code: string, message: string) => Object.assign(new Error(`${code}: ${message}`), {code})

it('says what failed in the data dir and what to do, for each errno of a disk; nothing for another error', () => {
  expect(diskFailure('compacting', '/srv/tp', errno('ENOSPC', 'no space left on device, write'))).toBe(
    'store: compacting /srv/tp failed (ENOSPC: no space left on device, write): free space on its disk.',
  )
  for (const code of ['EDQUOT', 'EACCES', 'EPERM', 'EROFS', 'EISDIR', 'EIO'])
    expect(diskFailure('stopping on', '/srv/tp', errno(code, 'x')), code).toMatch(
      /^store: stopping on \/srv\/tp failed/,
    )
  // a bug, or a failure of something else: the caller keeps the error as it is, stack and all
  expect(diskFailure('starting on', '/srv/tp', new TypeError('x is undefined'))).toBeUndefined()
  expect(diskFailure('starting on', '/srv/tp', errno('ECONNREFUSED', 'x'))).toBeUndefined()
})
