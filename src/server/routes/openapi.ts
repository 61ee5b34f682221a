import {defineEventHandler, type Router} from 'h3'
import type {AppContext} from '../context.js'
import {openApiDocument} from '../openapi.js'

/** The OpenAPI 3.1 document, public like `/health`: tools fetch it without a key, and it holds no data. */
export function openApiRoutes(router: Router, {baseUrl}: AppContext): void {
  router.get(
    '/v1/openapi.json',
    defineEventHandler(() => openApiDocument(baseUrl)),
  )
}
