import {describe, expect, it} from 'vitest'
import {TablepayApiError, TablepayError} from '../../src/client/errors.js'
import {describeError, errorBody, suggestionsFor} from '../../src/cli/errors.js'
import {ApiError} from '../../src/domain/errors.js'
import {tooLongToSave} from '../../src/domain/snapshot-errors.js'

const notFound = (message: string) => new TablepayApiError(404, {code: 'not_found', message})

describe('suggestionsFor not_found', () => {
  it.each([
    ['No check chk_4f0b in this account.', 'tablepay checks list'],
    ['No check with external id t99 in this account.', 'tablepay checks list'],
    ['No webhook endpoint we_nope in this account.', 'tablepay webhooks list'],
    ['No delivery dlv_nope in this account.', 'tablepay deliveries list'],
    ['No event evt_nope in this account.', 'tablepay events list'],
    ['No payment pay_nope in this account.', 'tablepay trigger payment'],
    ['No claim clm_nope in this account.', 'tablepay trigger claim'],
    ['No location loc_nope in this account.', 'tablepay locations list'],
  ])('%s points to %s and to no other list', (message, command) => {
    const [hint] = suggestionsFor(notFound(message))!
    expect(hint).toContain(command)
    const lists = ['checks list', 'webhooks list', 'deliveries list', 'locations list']
    const others = lists.filter((c) => !command.endsWith(c))
    for (const other of others) expect(hint).not.toContain(`tablepay ${other}`)
  })

  it('an unknown route points to --url, not to an id', () => {
    const [hint] = suggestionsFor(notFound('No such route. The API lives under /v1; docs/api.md lists its routes.'))!
    expect(hint).toContain('Check --url')
  })
})

describe('describeError', () => {
  it('names the command where the message names the route a CLI user would call through it', () => {
    const message =
      'Endpoint we_1 was deleted: nothing is delivered to it. Resend the event to an enabled endpoint with POST /v1/events/evt_1/resend.'
    expect(describeError(new TablepayApiError(409, {code: 'endpoint_disabled', message}))).toBe(
      'Endpoint we_1 was deleted: nothing is delivered to it. Resend the event to an enabled endpoint with `tablepay events resend evt_1 --endpoint we_…`.',
    )
  })
})

describe('suggestionsFor rate_limited', () => {
  it("a fault's 429 points to its wait and to the faults; a rate limit's to its wait", () => {
    const fault = new TablepayApiError(
      429,
      {code: 'rate_limited', message: 'Too many requests (simulated by fault flt_1): the request was carried out…'},
      2,
    )
    expect(suggestionsFor(fault)).toEqual([
      expect.stringMatching(/^Wait 2 s, then send the request again\. A fault you added.*`tablepay faults list`/),
    ])
    const limit = new TablepayApiError(429, {code: 'rate_limited', message: 'Rate limit of 10 requests per second'}, 2)
    expect(suggestionsFor(limit)).toEqual(['Wait 2 s, then send the request again.'])
  })
})

describe('suggestionsFor payload_too_large', () => {
  it("adds nothing to the server's message, which says what to send or keep (a snapshot's limit is not 1 MiB)", () => {
    for (const {code, message} of [tooLongToSave('lunch'), new ApiError('payload_too_large', 'Request body is…')])
      expect(suggestionsFor(new TablepayApiError(413, {code, message}))).toBeUndefined()
  })
})

describe('suggestionsFor storage_unavailable', () => {
  it("adds nothing to the server's message, which says what to do for the store and the failure it names", () => {
    const messages = [
      'tablepay could not write its data dir (EFBIG) and answers nothing more, …: raise the largest file size…',
      'tablepay cannot use its database (ECONNREFUSED) and answers nothing until it can, … It tries again every second…',
    ]
    for (const message of messages)
      expect(suggestionsFor(new TablepayApiError(503, {code: 'storage_unavailable', message}))).toBeUndefined()
  })
})

describe('suggestionsFor conflict_with_paid_items', () => {
  const conflict = (details: {path: string; message: string; external_id?: string}[]) =>
    suggestionsFor(new TablepayApiError(409, {code: 'conflict_with_paid_items', message: 'The push…', details}))![0]!

  it('a claimed item only: keep it, and no word of a refund', () => {
    const hint = conflict([{path: 'items', external_id: 'line-1001', message: 'item line-1001 is claimed by guests'}])
    expect(hint).toContain('keep every claimed item')
    expect(hint).not.toMatch(/refund/i)
  })

  it('what was paid: refund first', () => {
    const hint = conflict([{path: 'totals.total_cents', message: 'guests have paid 500; the total cannot go below it'}])
    expect(hint).toContain('refund with `tablepay trigger refund` first')
    expect(hint).not.toContain('claimed item')
  })
})

describe('describeError', () => {
  it('prints a validation problem once: the headline stops where the detail list starts', () => {
    const details = [
      {path: 'table', message: 'Required: expected object'},
      {path: 'items', message: 'Required: expected array'},
    ]
    const text = describeError(
      new TablepayApiError(422, {
        code: 'validation_failed',
        message: `Request body failed validation: ${details[0]!.path}: ${details[0]!.message} (and 1 more, see details).`,
        details,
        request_id: 'req_1',
      }),
    )
    expect(text).toBe(
      [
        'Request body failed validation:',
        '  - table: Required: expected object',
        '  - items: Required: expected array',
        'Request id: req_1',
      ].join('\n'),
    )
  })

  it('prints a problem once when the message is the detail itself', () => {
    const detail = {path: 'location_id', message: 'required: this account has 2 locations: loc_main, loc_terrace'}
    const text = describeError(
      new TablepayApiError(422, {
        code: 'validation_failed',
        message: `${detail.path}: ${detail.message}`,
        details: [detail],
        request_id: 'req_1',
      }),
    )
    expect(text).toBe(
      ['The request was refused:', `  - ${detail.path}: ${detail.message}`, 'Request id: req_1'].join('\n'),
    )
  })

  it('prints the items not left to claim once: the headline stops where the list begins', () => {
    const details = [
      {path: 'items', external_id: 'a', message: 'only 0 of a left to claim'},
      {path: 'items', external_id: 'b', message: 'only 1 of b left to claim'},
    ]
    const message = `Not enough left to claim on check chk_1: ${details.map((d) => d.message).join('; ')}.`
    const text = describeError(new TablepayApiError(409, {code: 'item_unavailable', message, details}))
    expect(text).toBe(
      [
        'Not enough left to claim on check chk_1:',
        '  - items: only 0 of a left to claim',
        '  - items: only 1 of b left to claim',
      ].join('\n'),
    )
  })

  it('a push without the location an account of several needs points to --location', () => {
    const detail = {path: 'location_id', message: 'required: this account has 2 locations: loc_main, loc_terrace'}
    const error = new TablepayApiError(422, {code: 'validation_failed', message: detail.message, details: [detail]})
    expect(suggestionsFor(error)).toEqual([
      'Send it again naming one: `tablepay checks push` takes `--location loc_main`; or location_id in the body.',
    ])
    // a location the account lacks: where to see its own, not the id that was sent; none at all: the message says
    const refused = (message: string) =>
      suggestionsFor(
        new TablepayApiError(422, {
          code: 'validation_failed',
          message: `location_id: ${message}`,
          details: [{path: 'location_id', message}],
        }),
      )
    expect(refused('no location loc_terace in this account; GET /v1/locations lists them')).toEqual([
      "See the account's locations with `tablepay locations list`.",
    ])
    expect(
      refused('this account has no locations: restore a snapshot that has some, or start the server with a --seed'),
    ).toEqual(['Fix the fields the error names and send the request again.'])
    const other = new TablepayApiError(422, {
      code: 'validation_failed',
      message: 'x',
      details: [{path: 'items', message: 'x'}],
    })
    expect(suggestionsFor(other)).toEqual(['Fix the fields the error names and send the request again.'])
  })

  it("past an account's limit, says where to see what it holds and how to remove one; an import's refusal says it itself", () => {
    const limit = (path: string, message: string) =>
      suggestionsFor(new TablepayApiError(422, {code: 'limit_reached', message, details: [{path, message: 'x'}]}))
    expect(limit('faults', 'This account has 100 faults, the most it may have (100).')).toEqual([
      '`tablepay faults list` shows them; `tablepay faults clear flt_…` removes one, `tablepay faults clear` all.',
    ])
    expect(limit('webhook_endpoints', 'This account has 100 webhook endpoints, the most it may have (100).')).toEqual([
      '`tablepay webhooks list` shows them; `tablepay webhooks delete we_…` removes one.',
    ])
    expect(
      limit('webhook_endpoints', 'Snapshot s1 holds more webhook endpoints (101) than an account may have (100).'),
    ).toBeUndefined()
  })

  it("names a detail's external id only when its message does not already", () => {
    const text = describeError(
      new TablepayApiError(409, {
        code: 'conflict_with_paid_items',
        message: 'The push would take away items guests have already claimed (line-1, line-2); nothing was changed.',
        details: [
          {path: 'items', external_id: 'line-1', message: 'item line-1 is claimed by guests and cannot be removed'},
          {path: 'items', external_id: 'line-2', message: 'is claimed by guests'},
        ],
      }),
    )
    expect(text).toContain('  - items: item line-1 is claimed by guests and cannot be removed\n')
    expect(text).toContain('  - items: is claimed by guests (line-2)')
  })
})

describe('errorBody', () => {
  it("a flag's own parse error (usage exit code, no code) is invalid_usage", () => {
    const error = Object.assign(new Error('Parsing --tolerance \n\tExpected an integer'), {oclif: {exit: 2}})
    expect(errorBody(error).error.code).toBe('invalid_usage')
  })

  it('a client error keeps its code', () => {
    expect(errorBody(new TablepayError('connection_failed', 'No tablepay server')).error.code).toBe('connection_failed')
  })
})
