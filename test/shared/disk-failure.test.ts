import {expect, it} from 'vitest'
import {diskFailure} from '../../src/shared/disk-failure.js'

const errno = (code: string, message: string) => Object.assign(new Error(`${code}: ${message}`), {code})

it('says what failed in the data dir and what to do, for each errno of a disk; nothing for another error', () => {
  expect(diskFailure('compacting', '/srv/tp', errno('ENOSPC', 'no space left on device, write'))).toBe(
    'store: compacting /srv/tp failed (ENOSPC: no space left on device, write): free space on its disk.',
  )
  for (const code of ['EDQUOT', 'EFBIG', 'EACCES', 'EPERM', 'EROFS', 'EISDIR', 'EIO'])
    expect(diskFailure('stopping on', '/srv/tp', errno(code, 'x')), code).toMatch(
      /^store: stopping on \/srv\/tp failed/,
    )
  // a read's errno names no file: the file it failed on is named
  const read = Object.assign(errno('EISDIR', 'illegal operation on a directory, read'), {path: '/srv/tp/checks.json'})
  expect(diskFailure('starting on', '/srv/tp', read)).toBe(
    'store: starting on /srv/tp failed (EISDIR: illegal operation on a directory, read /srv/tp/checks.json): ' +
      'move out of it the directory that stands where one of its files should be.',
  )
  const open = Object.assign(errno('EACCES', "permission denied, open '/srv/tp/a.json'"), {path: '/srv/tp/a.json'})
  expect(diskFailure('starting on', '/srv/tp', open)).toContain("(EACCES: permission denied, open '/srv/tp/a.json'):")
  // a bug, or a failure of something else: the caller keeps the error as it is, stack and all
  expect(diskFailure('starting on', '/srv/tp', new TypeError('x is undefined'))).toBeUndefined()
  expect(diskFailure('starting on', '/srv/tp', errno('ECONNREFUSED', 'x'))).toBeUndefined()
})
