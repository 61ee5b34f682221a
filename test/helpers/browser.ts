import {existsSync} from 'node:fs'

/**
 * Debian's Chromium, never a browser playwright downloads. Its headless shell first (.ci/run installs it): the
 * same engine without the browser around it, as playwright itself runs headless; it took a file's browser CPU
 * from 16 s to 5 s.
 */
export const CHROMIUM =
  process.env.CHROMIUM_PATH ??
  ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path)) ??
  '/usr/bin/chromium'
