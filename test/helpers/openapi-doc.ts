/** The OpenAPI document the server serves, as the tests of it read it. */
import {openApiDocument} from '../../src/server/openapi.js'

export type Doc = {
  paths: Record<string, Record<string, {responses: Record<string, Response>}>>
  webhooks: Record<string, {post: {parameters: {name: string; schema: {enum?: string[]}}[]}}>
  components: {responses: Record<string, Response>; schemas: Record<string, any>}
}
export type Response = {$ref?: string; content?: Record<string, {schema: unknown}>; headers?: Record<string, unknown>}

export const doc = openApiDocument('http://127.0.0.1:4747') as unknown as Doc

/** `/v1/checks/:id` as the document writes it: `/checks/{id}`. */
export const documented = (routerPath: string) => routerPath.replace(/^\/v1/, '').replace(/:(\w+)/g, '{$1}')
