import {$, busyWhile, clock, currency, el, isolated, quantity, request} from './dom.js'
import {answerLine, nextAttempt} from './attempts.js'
import {showQr} from './qr-dialog.js'
import {focusKey, keepingFocus, keptOpen, latestShown} from './reloads.js'

// the key comes from the URL fragment (#key=…), which browsers never send to the server; spaces around it are
// no part of it, as the form trims them
const keyFromHash = () => new URLSearchParams(location.hash.slice(1)).get('key')?.trim()

let key = null
/** Whether the key has the write scope: the actions (retry, ping) need it. */
let writable = false
let following = null
let refreshTimer = null

/**
 * The key, and on the reads that draw the page a mark that keeps them out of the request log, which shows the
 * user's traffic; what a click changes is logged (docs/api.md, "The request log").
 */
const headersFor = (method) => ({authorization: `Bearer ${sendable(key)}`, ...(method === 'GET' && {'x-tablepay-client': 'dashboard'})})

/**
 * The key as a header carries it. Keys are ASCII letters, digits and `_`: one with a line break or a letter past
 * Latin-1, which fetch refuses to send, goes escaped, and the server answers it as the unknown key it is.
 */
const sendable = (key) => (/^[!-~]*$/.test(key) ? key : encodeURIComponent(key))

// relative to the page, as its files are: served under a path (a proxy's `/sandbox/`), it calls the API there
const api = (path, method = 'GET') => request(`v1${path}`, {method, headers: headersFor(method)})

/** A call that sends a JSON body (resend, rotate, chaos). */
const apiWith = (path, method, body) => request(`v1${path}`, {method, body, headers: headersFor(method)})

const WRITE_HINT = 'Needs a write key: open this page with #key=<write key> (tablepay serve prints both keys).'

/** Asks whether the key may write (`GET /v1/sim/key`), without changing anything. */
async function canWrite() {
  return (await api('/sim/key')).scopes.includes('write')
}

/** A button of the record `id`'s row for an action that changes state: disabled, with the reason, under a read key. */
function actionButton(label, name, id, run) {
  const props = {type: 'button', class: 'secondary small', 'aria-label': name, disabled: !writable, title: writable ? undefined : WRITE_HINT, ...focusKey(id, label)}
  const button = el('button', props, label)
  button.addEventListener('click', async () => {
    button.disabled = true
    $('notice').hidden = true
    delete $('notice').dataset.action
    try {
      await run()
    } catch (error) {
      showError(error)
      $('notice').dataset.action = 'failed'
    } finally {
      button.disabled = false
    }
  })
  return button
}

function showError(error) {
  $('notice').textContent = error.message
  $('notice').hidden = false
  // a key that does not work shows nothing of an account: the form asks for another
  if (error.status !== 401) return
  $('key-form').hidden = false
  $('board').hidden = true
}

function table(id, headers, rows, empty) {
  const head = el('thead', {}, el('tr', {}, headers.map((h) => el('th', {scope: 'col'}, h))))
  // on a phone each row becomes a card, each cell labelled with its column
  for (const row of rows) {
    for (const [i, cell] of [...row.children].entries()) {
      cell.setAttribute('data-label', headers[i])
      cell.replaceChildren(el('div', {}, ...cell.childNodes))
    }
  }
  const body = el('tbody', {}, rows.length ? rows : el('tr', {}, el('td', {colspan: headers.length, class: 'hint'}, empty)))
  $(id).replaceChildren(head, body)
}

/** The items' quantities added up, to the thousandth a quantity has at most: 0.1 + 0.2 is 0.3. */
const sumOf = (items, field) => Math.round(items.reduce((n, item) => n + item[field], 0) * 1000) / 1000

/** The account's locations, every page of them: a check at any of them shows its currency. */
async function allLocations() {
  const locations = []
  for (let after = ''; ; ) {
    const page = await api(`/locations?limit=100${after && `&starting_after=${encodeURIComponent(after)}`}`)
    locations.push(...page.data)
    if (!page.has_more) return locations
    after = page.next_cursor
  }
}

/** Each currency's amounts, made once: `Intl.NumberFormat` is slow to build. */
const currencies = new Map()
const amountsIn = (code) => currencies.get(code) ?? currencies.set(code, currency(code)).get(code)

/** `checks`, each with its amounts in its location's currency (`currencyOf`: a location's id to its code). */
function renderChecks(checks, currencyOf) {
  const rows = checks.map((check) => {
    const money = amountsIn(currencyOf.get(check.location_id) ?? null)
    const qr = el('button', {type: 'button', class: 'secondary small', 'aria-label': `Show the QR code of table ${check.table.number}`, ...focusKey(check.id, 'qr')}, 'QR')
    qr.addEventListener('click', () => showQr(check, qr.dataset.focus))
    // the text stays short; a reader hears which table's page it opens
    const link = el('a', {href: check.guest_url, target: '_blank', 'aria-label': `Table page of table ${check.table.number}`, ...focusKey(check.id, 'page')}, 'Table page')
    // `bare` cells speak for themselves: a phone's card shows them without their column's name
    return el(
      'tr',
      {},
      el('td', {}, el('strong', {class: 'table-number', title: check.table.number}, isolated(check.table.number)), ' ', el('small', {class: 'ext', title: check.external_id}, isolated(check.external_id))),
      el('td', {class: 'bare'}, el('span', {class: 'badge', 'data-status': check.status}, check.status)),
      el('td', {class: 'bare'}, el('span', {class: 'badge', 'data-status': check.payment_status}, check.payment_status.replace('_', ' '))),
      el('td', {class: 'num'}, money.format(check.totals.total_cents)),
      el('td', {class: 'num'}, money.format(check.amount_due_cents)),
      el('td', {class: 'num'}, `${quantity(sumOf(check.items, 'claimed_quantity'))} / ${quantity(sumOf(check.items, 'quantity'))}`),
      el('td', {}, clock(check.updated_at)),
      el('td', {class: 'bare'}, qr, ' ', link),
    )
  })
  table('checks', ['Table', 'Status', 'Payment', 'Total', 'Due', 'Claimed', 'Updated', 'Guest page'], rows, el('span', {}, 'No checks yet: push one with ', el('code', {}, 'tablepay checks push'), '.'))
}

function renderEvent(event) {
  return el(
    'li',
    {},
    keptOpen(event.id, [el('time', {datetime: event.created_at}, clock(event.created_at)), ' ', el('strong', {}, event.type), ' ', el('small', {}, String(event.data?.id ?? ''))], el('pre', {}, JSON.stringify(event.data, null, 2))),
  )
}

function renderDelivery(delivery) {
  const attempts = delivery.attempts.map((a) =>
    el('li', {}, `#${a.attempt} ${clock(a.at)} · ${a.status_code ?? 'no answer'} · ${a.duration_ms} ms${a.duplicate ? ' · duplicate' : ''}${a.error ? ` · ${a.error}` : ''}${answerLine(a)}`),
  )
  const next = delivery.next_attempt_at ? ` · ${nextAttempt(delivery)}` : ''
  const retry = actionButton('Retry now', `Retry delivery ${delivery.id}`, delivery.id, async () => {
    await api(`/deliveries/${encodeURIComponent(delivery.id)}/retry`, 'POST')
    scheduleRefresh()
  })
  return el(
    'li',
    {},
    keptOpen(
      delivery.id,
      [el('span', {class: 'badge', 'data-status': delivery.status}, delivery.status), ' ', el('strong', {}, delivery.event_type), ' ', el('small', {}, `${delivery.endpoint_id} · ${delivery.attempts.length} attempt(s)${next}`)],
      attempts.length ? el('ol', {class: 'attempts'}, attempts) : el('p', {class: 'hint'}, 'Not attempted yet.'),
      el('p', {class: 'actions'}, retry, ' ', resendButton(delivery)),
    ),
  )
}

/**
 * What the endpoints table shows now: it is rebuilt only when that changes,
 * so a change it does not show (a rotated secret, a new `updated_at`) leaves
 * the field being typed in, and its focus, alone. A rebuild keeps what the
 * reader is in the middle of, by endpoint: the last ping or rotation message
 * (a new secret is shown once), an open chaos form and the values typed into it.
 */
let endpointsShown = ''
const endpointNotes = new Map()
const chaosDrafts = new Map()

function renderEndpoints(endpoints, chaos = new Map()) {
  const shown = JSON.stringify([writable, endpoints.map((e) => [e.id, e.url, e.status, e.event_types]), [...chaos]])
  if (shown === endpointsShown) return
  endpointsShown = shown
  const rows = endpoints.map((endpoint) => {
    const result = el('small', {class: 'result', role: 'status'}, endpointNotes.get(endpoint.id) ?? '')
    const note = (text) => {
      endpointNotes.set(endpoint.id, text)
      result.textContent = text
    }
    const ping = actionButton('Send ping', `Ping ${endpoint.url}`, endpoint.id, async () => {
      note('Sending…')
      const test = await api(`/webhook-endpoints/${encodeURIComponent(endpoint.id)}/test`, 'POST')
      note(
        test.succeeded
          ? `Ping answered ${test.status_code} in ${test.duration_ms} ms`
          : `Ping failed: ${test.error ?? test.status_code}`,
      )
    })
    return el(
      'tr',
      {},
      el('td', {class: 'url', title: endpoint.url}, endpoint.url, el('br'), el('small', {}, endpoint.id)),
      el('td', {}, el('span', {class: 'badge', 'data-status': endpoint.status}, endpoint.status)),
      el('td', {class: 'types', title: endpoint.event_types.join(', ')}, endpoint.event_types.join(', ')),
      el('td', {class: 'row-actions'}, ping, rotateButton(endpoint, note), chaosControls(endpoint, chaos.get(endpoint.id)), result),
    )
  })
  table('endpoints', ['URL', 'Status', 'Events', 'Actions'], rows, el('span', {}, 'No endpoints yet. Forward events to your app with ', el('code', {}, 'tablepay listen --forward-to http://localhost:3000/webhooks'), '.'))
}

// Resend, rotation and delivery chaos (docs/api.md, "Webhooks"): actions that change state, like retry and ping.

function resendButton(delivery) {
  return actionButton('Resend', `Resend ${delivery.event_id} to ${delivery.endpoint_id}`, delivery.id, async () => {
    await apiWith(`/events/${encodeURIComponent(delivery.event_id)}/resend`, 'POST', {endpoint_id: delivery.endpoint_id})
    scheduleRefresh()
  })
}

/** Rotates with the default overlap; the new secret is shown here, once, as the API shows it once. */
function rotateButton(endpoint, note) {
  return actionButton('Rotate secret', `Rotate the secret of ${endpoint.url}`, endpoint.id, async () => {
    const rotated = await apiWith(`/webhook-endpoints/${encodeURIComponent(endpoint.id)}/rotate-secret`, 'POST', {})
    note(`New secret (shown once): ${rotated.secret}. The old one signs beside it for 24h on the scheduler clock.`)
  })
}

/** Duplicate probability, reorder window and seed, set and ended from the row; disabled with the reason under a read key. */
function chaosControls(endpoint, chaos) {
  // a draft exists once the reader typed or opened the form: a rebuild keeps it as it was
  const draft = chaosDrafts.get(endpoint.id)
  const field = (label, name, value, attrs) => {
    // typed as no number (kept as null): no field can be given that text again, so it is drawn empty and marked
    const unread = draft?.values[name] === null
    const input = el('input', {name, type: 'number', value: unread ? '' : (draft?.values[name] ?? value), disabled: !writable, title: writable ? undefined : WRITE_HINT, 'aria-label': `${label} for ${endpoint.url}`, ...focusKey(endpoint.id, name), ...attrs})
    if (unread) input.setCustomValidity('Not a number: type it in digits.')
    input.addEventListener('input', () => {
      input.setCustomValidity('')
      const kept = chaosDrafts.get(endpoint.id) ?? {open: true, values: {}}
      kept.values[name] = input.validity.badInput ? null : input.value
      chaosDrafts.set(endpoint.id, kept)
    })
    return [el('label', {}, label, ' ', input), input]
  }
  const [dupLabel, duplicate] = field('Duplicate', 'duplicate', chaos?.duplicate ?? 0, {min: 0, max: 1, step: 0.05})
  const [reorderLabel, reorder] = field('Reorder (s)', 'reorder', chaos?.reorder_window_s ?? 0, {min: 0, max: 3600, step: 1})
  const [seedLabel, seed] = field('Seed', 'seed', chaos?.seed ?? '', {min: 0, step: 1})
  const path = `/sim/webhook-endpoints/${encodeURIComponent(endpoint.id)}/chaos`
  const set = actionButton('Set chaos', `Set chaos for ${endpoint.url}`, endpoint.id, async () => {
    // a number field holding what is no number reads as empty, which the API takes as 0
    const unread = [duplicate, reorder, seed].find((input) => input.validity.badInput || input.validity.customError)
    if (unread) throw new Error(`${unread.getAttribute('aria-label')} is not a number: type it in digits.`)
    const body = {duplicate: Number(duplicate.value), reorder_window_s: Number(reorder.value)}
    if (seed.value !== '') body.seed = Number(seed.value)
    await apiWith(path, 'PUT', body)
    chaosDrafts.delete(endpoint.id)
    scheduleRefresh()
  })
  const end = actionButton('End chaos', `End chaos for ${endpoint.url}`, endpoint.id, async () => {
    await apiWith(path, 'DELETE')
    chaosDrafts.delete(endpoint.id)
    scheduleRefresh()
  })
  const state = chaos?.enabled
    ? `Chaos on: duplicate ${chaos.duplicate}, reorder ${chaos.reorder_window_s}s, seed ${chaos.seed}`
    : 'No delivery chaos'
  const form = el('details', {class: 'chaos', open: draft?.open}, el('summary', focusKey(endpoint.id, 'chaos'), el('small', {}, state)), el('p', {}, dupLabel, ' ', reorderLabel, ' ', seedLabel), el('p', {class: 'actions'}, set, ' ', end))
  form.addEventListener('toggle', () => {
    const kept = chaosDrafts.get(endpoint.id) ?? {open: form.open, values: {}}
    kept.open = form.open
    chaosDrafts.set(endpoint.id, kept)
  })
  return form
}

/** Each endpoint's delivery chaos, by endpoint id; an endpoint deleted since the list has none (a 404). */
async function chaosOf(endpoints) {
  const path = (e) => `/sim/webhook-endpoints/${encodeURIComponent(e.id)}/chaos`
  const all = await Promise.all(endpoints.map((e) => api(path(e)).catch((error) => (error.status === 404 ? null : Promise.reject(error)))))
  return new Map(all.filter(Boolean).map((chaos) => [chaos.endpoint_id, chaos]))
}

// --- the Requests panel (docs/api.md, "The request log")

function requestPart(title, value) {
  return [el('p', {class: 'request-part'}, title), el('pre', {}, value === null ? '(none)' : typeof value === 'string' ? value : JSON.stringify(value, null, 2))]
}

function renderRequest(entry) {
  const outcome = entry.push_result ?? entry.error?.code ?? ''
  const status = entry.status === null ? 'reset' : String(entry.status)
  const details = keptOpen(
    entry.id,
    [
      el('time', {datetime: entry.created_at}, clock(entry.created_at)),
      ' ',
      el('strong', {}, `${entry.method} ${entry.path}`),
      ' ',
      el('span', {class: 'badge', 'data-class': entry.status === null ? 'none' : String(entry.status)[0]}, status),
      ' ',
      outcome,
      ' ',
      el('small', {}, `${Math.round(entry.duration_ms)} ms · ${entry.id}${entry.fault_id ? ` · fault ${entry.fault_id}` : ''}`),
    ],
    entry.error ? el('p', {class: 'notice', role: 'note'}, `${entry.error.code}: ${entry.error.message}`) : null,
    requestPart(`Request${entry.request_body_truncated ? ' (cut at 64 KiB)' : ''}`, entry.request_body),
    requestPart(`Answer ${status}${entry.response_body_truncated ? ' (cut at 64 KiB)' : ''}`, entry.response_body),
    entry.changes ? requestPart('Changes', entry.changes) : null,
  )
  details.dataset.request = entry.id
  return el('li', {}, details)
}

const refreshRequests = latestShown(
  () => {
    const status = $('request-status').value
    // a server started with --request-log 0 keeps none, and its answer says so: the panel shows why it is empty
    const off = (error) => (error.code === 'not_found' ? {data: [], off: error.message} : Promise.reject(error))
    return api(`/sim/requests?limit=50${status ? `&status=${status}` : ''}`).catch(off)
  },
  (page) =>
    keepingFocus(() =>
      $('requests').replaceChildren(...(page.data.length ? page.data.map(renderRequest) : [el('li', {class: 'hint'}, page.off ?? 'No requests yet.')])),
    ),
)

let requestsTimer = null
function scheduleRequests() {
  clearTimeout(requestsTimer)
  requestsTimer = setTimeout(() => refreshRequests().catch(showError), 200)
}

$('request-status').addEventListener('change', () => refreshRequests().catch(showError))

const refreshLists = latestShown(
  async () => {
    const [checks, events, deliveries, endpoints, locations] = await Promise.all([
      api('/checks?limit=100'),
      api('/events?limit=50'),
      api('/deliveries?limit=50'),
      api('/webhook-endpoints?limit=100'),
      allLocations(),
    ])
    const currencyOf = new Map(locations.map((location) => [location.id, location.currency]))
    return {checks, events, deliveries, endpoints, currencyOf, chaos: await chaosOf(endpoints.data)}
  },
  ({checks, events, deliveries, endpoints, currencyOf, chaos}) =>
    keepingFocus(() => {
      renderChecks(checks.data, currencyOf)
      $('checks-more').hidden = !checks.has_more
      $('events').replaceChildren(...events.data.map(renderEvent))
      $('deliveries').replaceChildren(...deliveries.data.map(renderDelivery))
      // one deleted while the page read it is gone: the reload its deletion makes would drop it anyway
      renderEndpoints(endpoints.data.filter((e) => chaos.has(e.id)), chaos)
    }),
)

async function refresh() {
  await busyWhile($('board'), async () => {
    await refreshLists()
    await refreshRequests()
  })
  for (const hint of document.querySelectorAll('.write-hint')) {
    hint.textContent = WRITE_HINT
    hint.hidden = writable
  }
  // what a reload failed with is over once one works; why an action failed stays until the next action
  if (!$('notice').dataset.action) $('notice').hidden = true
}

// a burst of events (a push, its deliveries, their attempts) makes one reload
function scheduleRefresh() {
  clearTimeout(refreshTimer)
  refreshTimer = setTimeout(() => refresh().catch(showError), 200)
}

/** Whether a request message tells of a write the server took (2xx). */
function changedSomething(block) {
  const data = /^data: (.*)$/m.exec(block)?.[1]
  const entry = data ? JSON.parse(data) : {}
  return !['GET', 'HEAD'].includes(entry.method) && entry.status >= 200 && entry.status < 300
}

/** Server-sent events over fetch: EventSource cannot send the Authorization header. */
async function follow(signal) {
  const response = await fetch('v1/sim/stream', {headers: {...headersFor('GET'), accept: 'text/event-stream'}, signal})
  if (!response.ok) throw Object.assign(new Error((await response.json()).error.message), {status: response.status})
  $('live').textContent = '● Live'
  // what changed before the stream opened (a drop, a restart, the first load) is in no message: reload once
  scheduleRefresh()
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  // each message (a new event, a delivery attempt, a restore's reset) only says that something changed: the
  // lists are reloaded
  for (;;) {
    const {value, done} = await reader.read()
    if (done) break
    buffer += value
    let end
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      if (/^event: (event|delivery|reset)$/m.test(block)) scheduleRefresh()
      // a write that changed an endpoint (made, deleted, its secret or chaos) makes no event: the lists are
      // reloaded after every write that went through; a read only adds a line to the panel
      else if (/^event: request$/m.test(block)) (changedSomething(block) ? scheduleRefresh : scheduleRequests)()
    }
  }
}

function connect() {
  following?.abort()
  const controller = new AbortController()
  following = controller
  let refused = false
  follow(controller.signal)
    .catch((error) => {
      if (controller.signal.aborted) return
      if (error.status) showError(error)
      // a key that stopped working will not work in 2 s either: wait for a new one
      refused = error.status === 401 || error.status === 403
    })
    .finally(() => {
      if (controller.signal.aborted || !key) return
      // refused, it tries no more: the mark says so, not that it is about to come back
      $('live').textContent = refused ? 'Live updates stopped.' : 'Reconnecting…'
      if (refused) return
      setTimeout(() => following === controller && connect(), 2000)
    })
}

async function open() {
  key = keyFromHash()
  delete $('notice').dataset.action
  $('key-form').hidden = Boolean(key)
  $('board').hidden = !key
  if (!key) {
    following?.abort()
    return
  }
  try {
    writable = await canWrite()
    await refresh()
    connect()
  } catch (error) {
    showError(error)
  }
}

$('key-form').addEventListener('submit', (event) => {
  event.preventDefault()
  const value = $('key').value.trim()
  if (value) location.hash = new URLSearchParams({key: value}).toString()
})
window.addEventListener('hashchange', open)
open()
