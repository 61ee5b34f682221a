import {routePath} from '../domain/routes.js'
import {durationSeconds, type ScenarioStep, type StepInput} from '../domain/scenario.js'

/** One API call a step makes: what `TablepayClient.request` sends. */
export interface StepRequest {
  method: string
  /** Under /v1. */
  path: string
  body?: unknown
  headers?: Record<string, string>
  idempotencyKey?: string
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))

/** The body a kind's object carries besides the fields it names (docs/scenarios.md, "Steps"). */
function guest(input: Record<string, unknown>, named: string) {
  const {[named]: _target, idempotency_key, ...body} = input
  return {body, ...(idempotency_key === undefined ? {} : {idempotencyKey: text(idempotency_key)})}
}

/**
 * The API call of a step whose references are resolved; undefined for an
 * `expect_event`, which reads the events until one appears instead.
 *
 * @example
 * stepRequest({kind: 'pay', input: {check: 'chk_1', amount_cents: 1200}})
 * // {method: 'POST', path: '/sim/checks/chk_1/payments', body: {amount_cents: 1200}}
 */
export function stepRequest(step: ScenarioStep): StepRequest | undefined {
  switch (step.kind) {
    case 'push': {
      const {external_id, ...body} = step.input
      return {method: 'PUT', path: routePath('pushCheck', {external_check_id: text(external_id)}), body}
    }
    case 'claim':
      return {
        method: 'POST',
        path: routePath('simulateClaim', {id: text(step.input.check)}),
        ...guest(step.input, 'check'),
      }
    case 'pay':
      return {
        method: 'POST',
        path: routePath('simulatePayment', {id: text(step.input.check)}),
        ...guest(step.input, 'check'),
      }
    case 'refund': {
      const id = text(step.input.payment)
      return {method: 'POST', path: routePath('simulateRefund', {id}), ...guest(step.input, 'payment')}
    }
    case 'feedback':
      return {
        method: 'POST',
        path: routePath('simulateFeedback', {id: text(step.input.check)}),
        ...guest(step.input, 'check'),
      }
    case 'advance':
      return {method: 'POST', path: routePath('advanceClock', {}), body: {seconds: durationSeconds(step.input)}}
    case 'fault':
      return {method: 'POST', path: routePath('createFault', {}), body: step.input}
    case 'webhook_endpoint': {
      // with a secret of the scenario's choosing, the simulator's own route takes it
      const route = 'secret' in step.input ? 'createWebhookEndpointWithSecret' : 'createWebhookEndpoint'
      return {method: 'POST', path: routePath(route, {}), body: step.input}
    }
    case 'request':
      return requestOf(step.input)
    case 'expect':
      return {method: 'GET', path: step.input.get}
    case 'snapshot':
      return {method: 'POST', path: routePath('saveSnapshot', {}), body: {name: step.input}}
    case 'restore':
      return {method: 'POST', path: routePath('restoreSnapshot', {name: text(step.input)})}
    case 'expect_event':
      return undefined
  }
}

function requestOf({method, path, body, headers, idempotency_key}: StepInput<'request'>): StepRequest {
  return {
    method,
    path,
    ...(body === undefined ? {} : {body}),
    ...(headers === undefined ? {} : {headers}),
    ...(idempotency_key === undefined ? {} : {idempotencyKey: idempotency_key}),
  }
}
