import {STATUS_CODES} from 'node:http'
import {readFileSync} from 'node:fs'
import * as z from 'zod'
import {OWN_CLIENTS} from '../domain/constants.js'
import {EVENT_TYPES} from '../domain/schemas.js'
import {SIGNATURE_HEADER} from '../webhooks/signature.js'
import {serverBase} from '../shared/server-url.js'
import {ListQuery} from './internal/list.js'
import {
  errorAnswerName,
  ErrorBody,
  errorComponents,
  errorsByStatus,
  FAULT_HEADERS,
  header,
  HEADERS,
  pascal,
  shapeCodesOf,
} from './openapi-errors.js'
import {SharedAnswers} from './openapi-answers.js'
import {faultable, OPERATIONS, type Operation, pathParams, TAGS} from './operations.js'
import {NAMED_SCHEMAS, NoBody, PATH_PARAMS} from './schemas.js'

type JsonSchema = Record<string, unknown>
type Io = 'input' | 'output'
type Named = keyof typeof NAMED_SCHEMAS

/** The regexes a zod string is checked with (a format such as `z.iso.datetime()` is its own first check). */
const regexesOf = (schema: z.core.$ZodType): RegExp[] =>
  [schema, ...(schema._zod.def.checks ?? [])]
    .map((check) => (check._zod.def as {pattern?: unknown}).pattern)
    .filter((pattern): pattern is RegExp => pattern instanceof RegExp)

/**
 * Keeps a schema saying what the server accepts (docs/api.md, "The OpenAPI
 * document"). A JSON Schema pattern has no flags, so a regex with `i`, `m` or
 * `s` would say another rule than the server's: one that takes any case spells
 * each letter both ways instead (`anyCase` in domain/any-case.ts). A date-time
 * is `format: date-time` alone, which takes any RFC 3339 offset, not zod's
 * pattern of it.
 */
function sayExactly({zodSchema, jsonSchema}: {zodSchema: z.core.$ZodType; jsonSchema: JsonSchema}): void {
  if (jsonSchema.format === 'date-time') delete jsonSchema.pattern
  const flagged = regexesOf(zodSchema).find((regex) => /[ims]/.test(regex.flags))
  if (flagged) throw new Error(`openapi: ${String(flagged)} has flags, which no JSON Schema pattern carries`)
}

const options = (io: Io) => ({io, target: 'draft-2020-12', override: sayExactly}) as const
const strip = ({$schema, $id, ...schema}: JsonSchema): JsonSchema => schema
const inline = (schema: z.ZodType, io: Io): JsonSchema => strip(z.toJSONSchema(schema, options(io)) as JsonSchema)
const ref = (name: string) => ({$ref: `#/components/schemas/${name}`})
const nameOf = (schema: z.ZodType): Named | undefined =>
  (Object.keys(NAMED_SCHEMAS) as Named[]).find((name) => NAMED_SCHEMAS[name] === schema)

const listOf = (item: z.ZodType) =>
  z.object({object: z.literal('list'), data: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable()})

/**
 * The named schemas, and a `<name>List` for each one a route lists. Request
 * bodies are written as accepted (input), answers as sent (output: no
 * unlisted fields).
 */
function componentSchemas(): Record<string, JsonSchema> {
  const bodies = new Set(OPERATIONS.map((op) => op.body))
  const registries = {input: z.registry<{id: string}>(), output: z.registry<{id: string}>()}
  for (const name of Object.keys(NAMED_SCHEMAS) as Named[]) {
    const schema = NAMED_SCHEMAS[name]
    registries[bodies.has(schema) ? 'input' : 'output'].add(schema, {id: name})
  }
  // every list has one shape: `List`, which each `<name>List` narrows to its items
  registries.output.add(listOf(z.unknown()), {id: 'List'})
  const schemas: Record<string, JsonSchema> = {}
  for (const io of ['input', 'output'] as const) {
    const {schemas: converted} = z.toJSONSchema(registries[io], {
      ...options(io),
      uri: (id) => `#/components/schemas/${id}`,
    })
    for (const [id, schema] of Object.entries(converted)) schemas[id] = strip(schema as JsonSchema)
  }
  const listed = new Set(OPERATIONS.filter((op) => op.list).map((op) => nameOf(op.response)))
  for (const name of listed)
    if (name) schemas[`${name}List`] = {allOf: [ref('List'), {properties: {data: {items: ref(name)}}}]}
  return schemas
}

function successSchema(op: Operation): JsonSchema {
  const name = nameOf(op.response)
  if (name) return ref(op.list ? `${name}List` : name)
  return inline(op.list ? listOf(op.response) : op.response, 'output')
}

/** The name a success answer is shared under: what it holds, its status when not 200, `Sim` without fault headers. */
function answerName(op: Operation, status: number, head: boolean): string {
  const name = nameOf(op.response)
  const holds = head ? 'Headers' : name ? `${name}${op.list ? 'List' : ''}` : pascal(op.id)
  return `${holds}${status === 200 ? '' : status}${faultable(op) ? '' : 'Sim'}Answer`
}

/** An operation's answers; `head` for its answers to HEAD, which are a GET's without their bodies. */
function responses(op: Operation, head: boolean, shared: SharedAnswers) {
  const answers: Record<string, unknown> = {}
  for (const status of op.status ?? [200]) {
    const headers: Record<string, unknown> = {'X-Request-Id': header('RequestId')}
    for (const [name, {description, schema}] of Object.entries(op.headers ?? {}))
      headers[name] = {description, schema: inline(schema, 'output')}
    if (op.idempotent) headers['Idempotent-Replayed'] = header('IdempotentReplayed')
    if (faultable(op)) Object.assign(headers, FAULT_HEADERS)
    const contentType = op.contentType ?? 'application/json'
    const content = head ? {} : {content: {[contentType]: {schema: successSchema(op)}}}
    // the reason phrase: the operation's summary says what it answers, once
    answers[String(status)] = shared.use(
      {description: STATUS_CODES[status], headers, ...content},
      answerName(op, status, head),
    )
  }
  for (const [status, codes] of errorsByStatus(op))
    answers[String(status)] = {$ref: `#/components/responses/${errorAnswerName(codes, head)}`}
  return answers
}

const REQUEST_ID_PARAMETER = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  description:
    'Echoed when it is 1–200 characters of `A-Z a-z 0-9 . _ : / + = -` holding no `whsec_…` secret or ' +
    '`tp_test_…` key; otherwise the server makes one.',
  schema: {type: 'string'},
}

const CLIENT_PARAMETER = {
  name: 'X-Tablepay-Client',
  in: 'header',
  required: false,
  description:
    "Sent by the dashboard (`dashboard`), the CLI's tails (`cli-tail`), scenario runs (`scenario`) and the test helpers' controls (`testing`) on their own reads: such a GET is left out of the request log and of `serve`'s access line, and no fault or rate limit counts it. On other methods, and with any other value, it changes nothing.",
  schema: {type: 'string', examples: [...OWN_CLIENTS]},
}

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'A replay with the same key answers the stored answer; the same key with another request is a 422.',
  schema: {type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$'},
}

const queryParameters = (query: z.ZodObject) =>
  Object.entries((inline(query, 'input') as {properties: Record<string, JsonSchema>}).properties).map(
    ([name, schema]) => ({name, in: 'query', required: false, schema}),
  )

/**
 * The parameters operations share, under `#/components/parameters`: the
 * request id, the client header, the idempotency key, every path parameter
 * and a list's `limit` and `starting_after`.
 */
function sharedParameters(): Record<string, unknown> {
  const names = new Set(OPERATIONS.flatMap((op) => pathParams(op.path)))
  const path = [...names].map((name) => {
    const schema = inline(PATH_PARAMS[name] ?? z.string(), 'input')
    return [`Path${pascal(name)}`, {name, in: 'path', required: true, schema}]
  })
  const query = queryParameters(ListQuery).map((param) => [`Query${pascal(param.name)}`, param])
  const headers = {RequestId: REQUEST_ID_PARAMETER, Client: CLIENT_PARAMETER, IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER}
  return {...headers, ...Object.fromEntries([...path, ...query])}
}

const parameterRef = (key: string) => ({$ref: `#/components/parameters/${key}`})

/**
 * What every operation of a path takes: `X-Request-Id`, the path's parameters and, where the path has a
 * GET (the reads that header is for), `X-Tablepay-Client`.
 */
const pathParameters = (path: string) => [
  parameterRef('RequestId'),
  ...(OPERATIONS.some((op) => op.path === path && op.method === 'get') ? [parameterRef('Client')] : []),
  ...pathParams(path).map((name) => parameterRef(`Path${pascal(name)}`)),
]

/** What the operation takes besides its path's parameters. */
function parameters(op: Operation) {
  const params: unknown[] = []
  if (op.list) {
    for (const name of Object.keys(ListQuery.shape)) params.push(parameterRef(`Query${pascal(name)}`))
    if (op.filters) params.push(...queryParameters(op.filters))
  }
  if (op.idempotent) params.push(parameterRef('IdempotencyKey'))
  return params
}

/**
 * A body that `{}` satisfies is optional: a request without one is read as
 * `{}` (`readJson` in server/internal/body.ts).
 */
const optionalBody = (body: z.ZodType) => body.safeParse({}).success

/** What the operation needs and answers beyond its summary, in words. */
function description(op: Operation, head: boolean): string {
  const lines = [head ? `\`GET ${op.path}\` without its body.` : `${op.summary}.`]
  // the scope the document's description gives every GET (read) and every other call (write) goes unsaid
  if (op.scope !== (op.method === 'get' ? 'read' : 'write'))
    lines.push(op.scope ? `Needs a key with the \`${op.scope}\` scope.` : 'Needs no key.')
  if (op.body && optionalBody(op.body)) lines.push('Every field of the body is optional: no body at all is `{}`.')
  if (op.idempotent) lines.push('Takes `Idempotency-Key`.')
  // a HEAD's refusals are its GET's, said there; what each means, its error answer says
  const shape = shapeCodesOf(op)
  const own = head ? [] : (op.errors ?? []).filter((code) => !shape.includes(code))
  if (own.length > 0) lines.push(`Refusals of its own: ${own.map((code) => `\`${code}\``).join(', ')}.`)
  return lines.join(' ')
}

function operation(op: Operation, shared: SharedAnswers, head = false) {
  const params = parameters(op)
  return {
    operationId: head ? `${op.id}Head` : op.id,
    summary: head ? `${op.summary} (headers only)` : op.summary,
    description: description(op, head),
    tags: [op.tag],
    // the document's `security` asks every operation for a key; the description names its scope
    ...(op.scope ? {} : {security: []}),
    ...(params.length > 0 ? {parameters: params} : {}),
    ...(head || op.method === 'get' ? {} : {requestBody: op.body ? requestBody(op.body) : NO_BODY}),
    responses: responses(op, head, shared),
  }
}

/** The body of a write that takes none: left out, or `{}` (server/app.ts refuses any other). */
const NO_BODY = {$ref: '#/components/requestBodies/NoBody'}

const requestBody = (body: z.ZodType) => ({
  required: !optionalBody(body),
  content: {'application/json': {schema: bodySchema(body)}},
})

function bodySchema(body: z.ZodType): JsonSchema {
  const name = nameOf(body)
  return name ? ref(name) : inline(body, 'input')
}

const DESCRIPTION = `The Tablepay pay-at-table API, as the local simulator serves it.

Every call but \`GET /health\` and \`GET /openapi.json\` needs \`Authorization: Bearer <key>\`; GETs need the \`read\` scope, everything else \`write\`. A call that takes no body takes none, or \`{}\`. Every answer carries \`X-Request-Id\`; every error answers \`{"error": {code, message, request_id, details?}}\`. An unknown route answers 404 \`not_found\` and a known path with another method 405 \`method_not_allowed\`: no operation can describe those, so their answers are \`#/components/responses/NotFound\` and \`MethodNotAllowed\` (with \`Allow\`), as are those given before any route, the connection then closed: \`MalformedRequest\`, \`RequestTimeout\`, \`ExpectationFailed\` and \`HeadersTooLarge\`. Every GET has its HEAD operation (\`…Head\`): the same status and headers, no body. A body whose fields are all optional may be left out, which is \`{}\`. A date-time takes any RFC 3339 offset. A request body may be sent with \`Content-Encoding: gzip\`, \`deflate\` or \`br\` (the 1 MiB limit applies once decoded; another coding is 415 \`unsupported_content_encoding\`), and with \`Expect: 100-continue\`, answered only once auth and the size check pass. \`/health\` and \`/openapi.json\` send \`Access-Control-Allow-Origin: *\`; the rest answers browsers only from the origins of \`serve --cors\`. \`/checks/external/…\` always means the POS id: check ids start with \`chk_\`, so no check is ever named \`external\`. Lists are newest first; pass \`next_cursor\` as \`starting_after\` for the next page.`

const DELIVERY_SUMMARY =
  'A delivery: one event envelope, POSTed to each enabled endpoint subscribed to its type; answer 2xx within 10 s'
const PING_SUMMARY =
  'A ping: `POST /webhook-endpoints/{id}/test` sends one at once, signed like a delivery, and never retries it'
const SIGNATURE_FORMAT = '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`'

/**
 * A POST the server makes to a receiver. It carries no API key: the
 * receiver checks the signature instead (docs/api.md), hence `security: []`.
 */
const deliveryHeader = (name: string, schema: JsonSchema, description?: string) => ({
  name,
  in: 'header',
  required: true,
  ...(description ? {description} : {}),
  schema,
})

function delivery(operationId: string, schema: Named, types: readonly string[], summary: string) {
  return {
    post: {
      operationId,
      summary,
      security: [],
      parameters: [
        deliveryHeader(SIGNATURE_HEADER, {type: 'string'}, SIGNATURE_FORMAT),
        deliveryHeader('X-Tablepay-Event-Id', {type: 'string'}),
        deliveryHeader('X-Tablepay-Event-Type', {type: 'string', enum: [...types]}),
        deliveryHeader('X-Tablepay-Delivery-Attempt', {type: 'string', pattern: '^[1-9][0-9]*$'}),
      ],
      requestBody: {required: true, content: {'application/json': {schema: ref(schema)}}},
      responses: {'2XX': {description: 'Received. Anything else, or no answer within 10 s, is a failed attempt.'}},
    },
  }
}

let document: Record<string, unknown> | undefined

function build(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  const shared = new SharedAnswers()
  for (const op of OPERATIONS) {
    const path = (paths[op.path] ??= {parameters: pathParameters(op.path)})
    path[op.method] = operation(op, shared)
    // the server answers HEAD on every GET route (server/internal/route-table.ts)
    if (op.method === 'get') path.head = operation(op, shared, true)
  }
  const answers = shared.components()
  type Package = {version: string; license: string; bugs: string}
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as Package
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tablepay API (local simulator)',
      version: pkg.version,
      description: DESCRIPTION,
      license: {name: pkg.license, identifier: pkg.license},
      contact: {name: 'Issues', url: pkg.bugs},
    },
    // an http scheme has no scopes to list (spectral's oas3-operation-security-defined)
    security: [{bearer: []}],
    tags: TAGS.map(({name, description}) => ({name, description})),
    paths,
    webhooks: {
      event: delivery('receiveEvent', 'Event', EVENT_TYPES, DELIVERY_SUMMARY),
      ping: delivery('receivePing', 'PingEvent', ['ping'], PING_SUMMARY),
    },
    components: {
      schemas: {...componentSchemas(), Error: inline(ErrorBody, 'output')},
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key, `tp_test_…`, with scopes `read` or `read` and `write`.',
        },
      },
      requestBodies: {NoBody: {...requestBody(NoBody), description: 'This operation takes no body: none, or `{}`.'}},
      parameters: sharedParameters(),
      headers: HEADERS,
      responses: {...errorComponents(), ...answers},
    },
  }
}

/**
 * The OpenAPI 3.1 document of the API, generated from the route table and
 * its zod schemas; `serverUrl` is where it says the API lives.
 *
 * @example
 * openApiDocument('http://127.0.0.1:4747').servers // [{url: 'http://127.0.0.1:4747/v1'}]
 */
export function openApiDocument(serverUrl: string): Record<string, unknown> {
  document ??= build()
  const {openapi, info, ...rest} = document
  return {openapi, info, servers: [{url: `${serverBase(serverUrl)}/v1`}], ...rest}
}
