import {readFile} from 'node:fs/promises'
import {type H3Event, send, setResponseHeaders} from 'h3'

// Plain files, no build step: `npm run build` copies public/ next to this module in dist. The path
// works from any folder one under dist/ too, as from dist/chunks/, where serve's bundle holds this module
// (scripts/serve-bundle.js).
const PUBLIC = new URL('../web/public/', import.meta.url)

const TYPES = {
  'dashboard.html': 'text/html; charset=utf-8',
  'guest.html': 'text/html; charset=utf-8',
  'missing.html': 'text/html; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'guest.js': 'text/javascript; charset=utf-8',
  'dom.js': 'text/javascript; charset=utf-8',
  'attempts.js': 'text/javascript; charset=utf-8',
  'qr-dialog.js': 'text/javascript; charset=utf-8',
  'reloads.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
} as const

export type Asset = keyof typeof TYPES

/** Whether `name` is one of the pages' files; anything else (`../x`, unknown names) is not served. */
export const isAsset = (name: string | undefined): name is Asset => name !== undefined && Object.hasOwn(TYPES, name)

// The pages load only their own files and talk only to this server; a guest link is a credential, so no referrer leaves with it.
const HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
}

const cache = new Map<Asset, Promise<Buffer>>()

/**
 * Answers with one of the pages' files (read once, then kept in memory).
 *
 * @example
 * router.get('/', defineEventHandler((event) => sendAsset(event, 'dashboard.html')))
 */
export async function sendAsset(event: H3Event, name: Asset): Promise<void> {
  let body = cache.get(name)
  if (!body) {
    body = readFile(new URL(name, PUBLIC))
    cache.set(name, body)
    body.catch(() => cache.delete(name))
  }
  setResponseHeaders(event, HEADERS)
  await send(event, await body, TYPES[name])
}
