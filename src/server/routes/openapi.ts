import * as z from 'zod'
import {openApiDocument} from '../openapi.js'
import type {OperationSpec} from '../operations.js'

/**
 * The OpenAPI 3.1 document, public like `/health`: tools fetch it without a
 * key, and it holds no data. It describes this operation too, so the
 * document's module and the list of operations import each other; neither
 * reads the other until a request.
 */
export const openApiOperations: OperationSpec[] = [
  {
    id: 'getOpenApi',
    summary: 'This document',
    response: z.looseObject({openapi: z.string()}),
    handler: (_, {baseUrl}) => openApiDocument(baseUrl),
  },
]
