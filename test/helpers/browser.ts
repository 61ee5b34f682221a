import {existsSync} from 'node:fs'
import type {Page} from 'playwright-core'

/**
 * Debian's Chromium, never a browser playwright downloads. Its headless shell first (.ci/run installs it): the
 * same engine without the browser around it, as playwright itself runs headless; it took a file's browser CPU
 * from 16 s to 5 s.
 */
export const CHROMIUM =
  process.env.CHROMIUM_PATH ??
  ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path)) ??
  '/usr/bin/chromium'

/**
 * Holds the answers to the page's requests that `matches` picks (the first only, with `once`): each is fetched
 * from the server at once, so `fetched` resolves when the server has answered, and reaches the page only after
 * `release()`. The order a busy network can give a page's requests and its live updates.
 *
 * @example
 * const bill = await holdAnswers(page, (url) => url.pathname.endsWith('/check'))
 * await bill.fetched
 * bill.release()
 */
export async function holdAnswers(page: Page, matches: (url: URL) => boolean, {once = false} = {}) {
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  let answered!: () => void
  const fetched = new Promise<void>((resolve) => (answered = resolve))
  let holding = true
  await page.route(matches, async (route) => {
    if (!holding) return route.continue()
    holding = !once
    const response = await route.fetch()
    const body = await response.body()
    answered()
    await held
    await route.fulfill({response, body})
  })
  return {fetched, release}
}
