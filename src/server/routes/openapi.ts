import * as z from 'zod'
import {openApiDocument} from '../openapi.js'
import type {OperationSpec} from '../operations.js'

/**
 * The OpenAPI 3.1 document, public like `/health`: tools fetch it without a
 * key, and it holds no data. The document describes this operation too, so
 * its module (../openapi.ts) and the list of operations import each other:
 * it reads the list only when first asked for the document, once both have
 * loaded.
 */
export const openApiOperations: OperationSpec[] = [
  {
    id: 'getOpenApi',
    summary: 'This document',
    response: z.looseObject({openapi: z.string()}),
    handler: (_, {baseUrl}) => openApiDocument(baseUrl),
  },
]
