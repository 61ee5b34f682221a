import {defineEventHandler, type Router} from 'h3'
import {ApiError} from '../../domain/errors.js'
import {isAsset, sendAsset} from '../../web/assets.js'

/**
 * The dashboard at `/`, the pages' files, and the icon at `/favicon.ico`. All
 * are static and public: the dashboard reads everything through the
 * authenticated /v1 API with a key the user gives it.
 */
export function webRoutes(router: Router): void {
  // HEAD too, so `curl -I` and uptime checks work on the pages (Node sends no body for it)
  const GET_HEAD = ['get', 'head'] as const

  router.use(
    '/',
    defineEventHandler((event) => sendAsset(event, 'dashboard.html')),
    [...GET_HEAD],
  )

  // the pages link their icon; a browser asks for this one on any other answer it shows (the JSON of /v1)
  router.use(
    '/favicon.ico',
    defineEventHandler((event) => sendAsset(event, 'favicon.svg')),
    [...GET_HEAD],
  )

  router.use(
    '/assets/:name',
    defineEventHandler((event) => {
      const name = event.context.params?.name
      if (!isAsset(name)) throw new ApiError('not_found', `No page asset ${name}.`)
      return sendAsset(event, name)
    }),
    [...GET_HEAD],
  )
}
