import type {RequestTrace} from '../../src/domain/request-log.js'

/**
 * A request as the request log records it: a GET answered 200 unless
 * `fields` say otherwise.
 *
 * @example
 * service.requests.record('acct_demo', requestTrace({id: 'req_1'}))
 */
export const requestTrace = (fields: Partial<RequestTrace> & {id: string}): RequestTrace => ({
  method: 'GET',
  path: '/v1/checks',
  query: {},
  status: 200,
  duration_ms: 1,
  created_at: '2026-01-01T00:00:00.000Z',
  key_hint: 'tp_test_…rite',
  idempotency_key: null,
  push_result: null,
  error: null,
  check_id: null,
  fault_id: null,
  request_body: undefined,
  response_body: undefined,
  ...fields,
})
