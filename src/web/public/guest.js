import {$, busyWhile, currency, el, isolated, postOnce, quantity as count, request} from './dom.js'
import {focusKey, focusOn, keepingFocus} from './reloads.js'

// The page lives at /t/{token}; its API is under the same path, so the token is the only credential.
const base = location.pathname.replace(/\/+$/, '')
const CHECK_STATUS = {open: 'Open', closed: 'Closed', voided: 'Voided'}
const PAYMENT_STATUS = {unpaid: 'Nothing paid yet', partially_paid: 'Partly paid', paid: 'Paid in full'}
// this tab's claims and payments, kept across reloads: what "what I claimed" means, and the demo's refund button
const claimsKey = `tablepay:claims:${base}`
const paymentsKey = `tablepay:payments:${base}`

let check = null
/** The live stream, once open, and how many bills it has sent: see reload(). */
let stream = null
let streamed = 0
let money = currency(null)
/** The location whose name and currency the page shows: a push may move the check to another one. */
let placeShown = null
/** What the amount is: `claimed`, `due` or `other` (typed by the guest). Null: the default. */
let payFor = null
/** How many of this tab's claims the form last offered to pay for. */
let claimsOffered = 0
/** What the check had been paid when this tab last read its payments, and that reading, one at a time. */
let paidSeen = null
let refreshing = Promise.resolve()
/** How many guest actions are under way: the buttons a live update rebuilds meanwhile stay disabled, so a second tap is not a second claim. */
let acting = 0
/** Whether this page sent its feedback: the thanks stay, the form does not come back. */
let feedbackSent = false

const stored = (key) => JSON.parse(sessionStorage.getItem(key) ?? '[]')
const store = (key, records) => sessionStorage.setItem(key, JSON.stringify(records))

/** Says `text` (a string, or strings and elements: a sentence around `isolated` POS text) in the notice. */
function notify(text, kind = 'info') {
  const notice = $('notice')
  notice.replaceChildren(...[text].flat())
  notice.dataset.kind = kind
  notice.setAttribute('role', kind === 'error' ? 'alert' : 'status')
  notice.hidden = false
  // the forms are far down on a phone: bring a refusal into view
  if (kind === 'error') notice.scrollIntoView({block: 'center'})
}

/** What an action whose request got no answer says: the stream's return takes it back. */
const UNREACHABLE = 'We could not reach the restaurant. Check your connection and try again.'

/** What a refusal means to a guest: the server's messages are written for developers. */
function guestMessage(error, special = {}) {
  if (!error.status) return UNREACHABLE
  const invalid = (path) => error.code === 'validation_failed' && error.details?.some((detail) => detail.path === path)
  // the amount was the page's, the tip the guest's choice: the one thing to change
  if (invalid('tip_cents')) return 'With this tip the payment is more than one payment can be. Choose a smaller tip, or none.'
  const due = money.format(check?.amount_due_cents ?? 0)
  const messages = {
    not_found: 'This table link no longer works. Scan the QR code on your table again, or ask the staff.',
    check_not_open: 'This bill is closed: nothing more can be claimed, paid, refunded or rated here.',
    item_unavailable: 'Someone at the table has just claimed the last one.',
    amount_exceeds_balance: `That is more than is left to pay (${due}). Enter a smaller amount.`,
    payment_declined: 'Your card was declined. Nothing was charged.',
    validation_failed: 'Please check what you entered and try again.',
    rate_limited: 'The restaurant is very busy. Please try again in a moment.',
    ...special,
  }
  // an amount past the most one payment can be (10^12 cents) is past what any bill has due too
  return messages[invalid('amount_cents') ? 'amount_exceeds_balance' : error.code] ?? 'Something went wrong on our side. Please try again.'
}

/**
 * Runs a guest action with its button disabled and the bill busy; a refusal is shown in words for guests, then the
 * bill reloaded.
 */
async function act(button, action, special) {
  // what the last action said no longer holds: this one says its own
  $('notice').hidden = true
  // disabled, the button lets go of the focus: it gets it back (or the one drawn in its place) once the action ends
  const focused = document.activeElement === button
  button.disabled = true
  acting++
  await busyWhile($('bill'), async () => {
    try {
      await action()
    } catch (error) {
      // the bill as it is now first: the message may quote what is due, and the bill may be gone
      const missing = await reload().then(() => error, (reloaded) => reloaded)
      if (missing.code === 'not_found') closeTable(guestMessage(missing))
      else notify(guestMessage(error, special), 'error')
    } finally {
      acting--
      if (!tableClosed) {
        button.disabled = false
        if (check) render(check)
        if (focused && document.activeElement === document.body) {
          if (button.isConnected) button.focus()
          else focusOn(button.dataset.focus)
          // disabled now (the last unit claimed, the bill paid), it takes no focus: the notice, which says what was done, does
          if (document.activeElement === document.body && !$('notice').hidden) $('notice').focus()
        }
      }
    }
  })
}

const post = (path, body) => postOnce(`${base}${path}`, body)

const left = (item) => Math.round((item.quantity - item.claimed_quantity) * 1000) / 1000

/** A claim's part of the bill: its items and their share of the tax, each rounded up (docs/pages.md, "What the page pays"). */
function claimShare(claim) {
  const prices = new Map(check.items.map((item) => [item.external_id, item.price_cents]))
  const line = ({external_id, quantity}) => ceilOf(Math.round(quantity * 1000), prices.get(external_id) ?? 0, 1000)
  const items = claim.items.reduce((sum, claimed) => sum + line(claimed), 0)
  const {subtotal_cents: subtotal, tax_cents: tax} = check.totals
  return {items, tax: subtotal > 0 ? ceilOf(tax, items, subtotal) : 0}
}

/** a × b / c rounded up, exactly, for whole numbers (quantities in thousandths): in floats 1.1 × 100 is 110.00000000000001. */
const ceilOf = (a, b, c) => Number((BigInt(a) * BigInt(b) + BigInt(c) - 1n) / BigInt(c))

/** This tab's claims that none of its payments holds (none made yet, or each refunded in full), free items' left out: nothing to pay. */
function unpaidClaims() {
  const payments = stored(paymentsKey)
  const owes = (claim) => claimShare(claim).items > 0
  return stored(claimsKey).filter((claim) => owes(claim) && !payments.some((p) => p.claim_id === claim.id && p.status !== 'refunded'))
}

/** One payment per unpaid claim of this tab, each naming its claim; none pays more than is due. */
function claimPayments() {
  let due = check.amount_due_cents
  return unpaidClaims().map((claim) => {
    const {items, tax} = claimShare(claim)
    const amount = Math.min(items + tax, due)
    due -= amount
    return {claim, amount}
  })
}

function renderItem(item) {
  const open = check.status === 'open'
  const available = left(item)
  // its name starts with what it shows (WCAG's label in name), then the item's: "All claimed: Burrata"
  const [shown, name] = available > 0 ? ['Claim', `Claim ${item.name}`] : ['All claimed', `All claimed: ${item.name}`]
  const claim = el('button', {type: 'button', class: 'secondary', 'aria-label': name, disabled: acting > 0 || !open || available <= 0, ...focusKey(item.external_id, 'claim')}, shown)
  claim.addEventListener('click', () =>
    act(
      claim,
      async () => {
        const quantity = Math.min(1, available)
        const made = await post('/claims', {items: [{external_id: item.external_id, quantity}]})
        store(claimsKey, [...stored(claimsKey), {id: made.id, items: made.items}])
        payFor = null
        notify([`You claimed ${count(quantity)} × `, isolated(item.name), '.'])
        await reload()
      },
      // the page sent an item of the bill it showed: the POS has taken it off since
      {validation_failed: [isolated(item.name), ' is no longer on the bill.']},
    ),
  )
  return el(
    'li',
    {class: 'item'},
    el(
      'div',
      {class: 'item-text'},
      el('strong', {}, isolated(item.name)),
      item.note ? el('span', {class: 'note'}, isolated(item.note)) : null,
      el('span', {class: 'meta'}, `${count(item.quantity)} × ${money.format(item.price_cents)} · ${count(item.claimed_quantity)} of ${count(item.quantity)} claimed`),
    ),
    claim,
  )
}

function renderTotals() {
  const rows = [
    ['Subtotal', check.totals.subtotal_cents],
    ['Tax', check.totals.tax_cents],
    ['Total', check.totals.total_cents],
    ['Paid', check.amount_paid_cents],
    ['Due', check.amount_due_cents],
  ]
  $('totals').replaceChildren(...rows.flatMap(([label, cents]) => [el('dt', {}, label), el('dd', {id: `total-${label.toLowerCase()}`}, money.format(cents))]))
}

function tipCents(amount) {
  const percent = Number(document.querySelector('input[name="tip"]:checked')?.value ?? 0)
  return Math.round((amount * percent) / 100)
}

/** The payments the form would make now. */
function plannedPayments() {
  if (payFor === 'claimed') return claimPayments().filter((p) => p.amount > 0)
  const amount = money.parse($('amount').value)
  return Number.isNaN(amount) ? [] : [{amount}]
}

function updatePayButton() {
  const planned = plannedPayments()
  const total = planned.reduce((sum, p) => sum + p.amount + tipCents(p.amount), 0)
  $('pay-button').textContent = planned.length ? `Pay ${money.format(total)}` : 'Pay'
}

/** Fills the amount for the chosen "pay for"; the default is what this tab claimed, else everything due. */
function renderAmount() {
  const claims = unpaidClaims()
  $('for-claimed').hidden = claims.length === 0
  // offered again (their payment refunded elsewhere), "what I claimed" is the default again, as when first offered
  if (claims.length > 0 && claimsOffered === 0 && payFor === 'due') payFor = null
  claimsOffered = claims.length
  if (payFor === null || (payFor === 'claimed' && claims.length === 0)) payFor = claims.length ? 'claimed' : 'due'
  document.querySelector(`input[name="for"][value="${payFor}"]`).checked = true
  if (payFor === 'claimed') {
    const shares = claims.map(claimShare)
    const items = shares.reduce((sum, s) => sum + s.items, 0)
    const tax = shares.reduce((sum, s) => sum + s.tax, 0)
    $('amount').value = money.plain(claimPayments().reduce((sum, p) => sum + p.amount, 0))
    $('amount-hint').textContent = `Your items (${money.format(items)}) and their share of the tax (${money.format(tax)}).`
  } else if (payFor === 'due') {
    $('amount').value = money.plain(check.amount_due_cents)
    $('amount-hint').textContent = 'Everything still due on this table.'
  } else {
    $('amount-hint').textContent = `Any amount up to ${money.format(check.amount_due_cents)}.`
  }
  updatePayButton()
}

function render(next) {
  if (tableClosed) return
  check = next
  // amounts are in the new location's currency once it is read: until then, in the one shown
  if (placeShown !== null && check.location_id !== placeShown) {
    placeShown = check.location_id
    loadCurrency().then(() => render(check))
  }
  document.title = `Table ${check.table.number} · Tablepay`
  $('title').replaceChildren('Table ', isolated(check.table.number))
  $('check-status').textContent = CHECK_STATUS[check.status]
  $('check-status').dataset.status = check.status
  $('payment-status').textContent = PAYMENT_STATUS[check.payment_status]
  $('payment-status').dataset.status = check.payment_status
  // a guest on the keyboard keeps their place while the bill changes under them
  keepingFocus(() => $('items').replaceChildren(...(check.items.length ? check.items.map(renderItem) : [el('li', {class: 'hint'}, 'No items yet.')])))
  renderTotals()
  const payable = check.status === 'open' && check.amount_due_cents > 0
  $('pay-form').hidden = !payable
  $('nothing-due').hidden = payable
  $('nothing-due').textContent = check.status === 'open' ? 'Nothing left to pay.' : `This bill is ${check.status}.`
  renderAmount()
  renderPayments()
  // guests act on an open bill only (docs/api.md, "The guest side"): feedback is left before the POS closes it
  $('feedback-form').hidden = feedbackSent || check.status !== 'open'
  $('feedback-closed').hidden = feedbackSent || check.status === 'open'
  // a refund made elsewhere while the page was away changes what the check has been paid: the tab's payments follow
  if (stored(paymentsKey).length && check.amount_paid_cents !== paidSeen) {
    paidSeen = check.amount_paid_cents
    followPayments()
  }
}

/**
 * How often a tab with a payment not yet refunded in full reads it again, in ms, while it is shown: a refund of
 * a tip alone, made elsewhere, leaves the check as it was, and the stream sends the check only.
 */
const PAYMENTS_EVERY_MS = 10_000

setInterval(() => {
  const refundable = stored(paymentsKey).some((p) => p.amount_cents + p.tip_cents > p.amount_refunded_cents)
  if (check && refundable && document.visibilityState === 'visible') followPayments()
}, PAYMENTS_EVERY_MS)

/** Reads this tab's payments again, one reading at a time, then shows them. */
function followPayments() {
  refreshing = refreshing.then(refreshPayments).then(() => {
    renderAmount()
    renderPayments()
  }, () => {})
}

function keepPayment(payment) {
  store(paymentsKey, [...stored(paymentsKey).filter((p) => p.id !== payment.id), payment])
}

/** Drops this tab's claims with the given ids (all of them without), and what it paid with them. */
function forgetClaims(ids) {
  const gone = (id) => !ids || ids.includes(id)
  store(claimsKey, stored(claimsKey).filter((claim) => !gone(claim.id)))
  if (!ids) store(paymentsKey, [])
  payFor = null
}

/**
 * This tab's payments as the server has them now: a refund may have been made elsewhere (the dashboard, the
 * API). One the check no longer has (a restore) is dropped.
 */
async function refreshPayments() {
  for (const payment of stored(paymentsKey)) {
    const now = await request(`${base}/payments/${encodeURIComponent(payment.id)}`).catch((error) =>
      error.code === 'not_found' ? null : payment,
    )
    if (now) keepPayment(now)
    else store(paymentsKey, stored(paymentsKey).filter((p) => p.id !== payment.id))
  }
}

function renderPayments() {
  const payments = stored(paymentsKey)
  $('payments-section').hidden = payments.length === 0
  keepingFocus(() => $('payments').replaceChildren(
    ...payments.map((payment) => {
      const refundable = payment.amount_cents + payment.tip_cents - payment.amount_refunded_cents
      // what it gives back: the rest of the payment, its tip too
      const label = `Refund ${money.format(refundable)}`
      const refund = el('button', {type: 'button', class: 'secondary', 'aria-label': label, disabled: acting > 0 || refundable <= 0 || check?.status !== 'open', ...focusKey(payment.id, 'refund')}, 'Refund')
      refund.addEventListener('click', () =>
        act(
          refund,
          async () => {
            keepPayment(await post(`/payments/${encodeURIComponent(payment.id)}/refund`, {}))
            // a claim it paid may be unpaid again: the default is what this tab claimed once more
            payFor = null
            notify('Payment refunded.')
            await reload()
          },
          {amount_exceeds_balance: 'This payment has already been refunded.'},
        ),
      )
      const tip = payment.tip_cents ? ` + ${money.format(payment.tip_cents)} tip` : ''
      const refunded = money.format(payment.amount_refunded_cents)
      const status = payment.amount_refunded_cents > 0 ? `${payment.status.replace('_', ' ')} (${refunded})` : payment.status
      return el('li', {class: 'payment'}, el('span', {}, `${money.format(payment.amount_cents)}${tip} · ${status}`), refund)
    }),
  ))
}

async function pay(event) {
  event.preventDefault()
  const planned = plannedPayments()
  if (planned.length === 0 || planned.some((p) => !(p.amount > 0))) {
    notify(`Enter an amount such as ${money.plain(1250)}.`, 'error')
    return
  }
  await act($('pay-button'), async () => {
    let charged = 0
    for (const {amount, claim} of planned) {
      const body = {amount_cents: amount, tip_cents: tipCents(amount)}
      if (claim) body.claim_id = claim.id
      if ($('decline').checked) body.simulate = 'decline'
      const payment = await post('/payments', body).catch((error) => {
        // a claim the bill no longer has (a restore, a reset): forget it, so the page stops offering it
        if (!claim || !error.details?.some((detail) => detail.path === 'claim_id')) throw error
        forgetClaims([claim.id])
        throw Object.assign(error, {code: 'claim_gone'})
      })
      keepPayment(payment)
      charged += payment.amount_cents + payment.tip_cents
    }
    payFor = null
    notify(`Paid ${money.format(charged)}. Thank you!`)
    await reload()
  }, {claim_gone: 'What you claimed is no longer on this bill. Choose what to pay again.'})
}

async function sendFeedback(event) {
  event.preventDefault()
  const rating = Number(document.querySelector('input[name="rating"]:checked')?.value)
  if (!rating) {
    notify('Choose a rating from 1 to 5.', 'error')
    return
  }
  const comment = $('comment').value.trim()
  await act(event.submitter ?? $('feedback-form').querySelector('button'), async () => {
    await post('/feedback', {rating, ...(comment ? {comment} : {})})
    feedbackSent = true
    $('feedback-form').hidden = true
    $('feedback-done').hidden = false
  })
}

/**
 * The bill as the server has it now. While the stream is open, an answer
 * that a stream message overtook on its way is dropped: it may be older than
 * that message, and the stream sends every change after it anyway.
 */
async function reload() {
  const before = streamed
  const next = await request(`${base}/check`)
  if (streamed === before || stream?.readyState !== EventSource.OPEN) render(next)
}

/** Set once the bill is gone: nothing is drawn again. */
let tableClosed = false

/** The bill is gone (or never was): only `text` is left on the page, no items or forms to act on. */
function closeTable(text) {
  tableClosed = true
  stream?.close()
  $('live').textContent = ''
  notify(text, 'error')
  for (const part of document.querySelectorAll('#bill > section, .badges')) part.hidden = true
  for (const button of document.querySelectorAll('button')) button.disabled = true
}

/** Heard from the restaurant: that it could not be reached no longer holds. */
function inTouch() {
  const notice = $('notice')
  if (notice.textContent !== UNREACHABLE) return
  // the focus it holds goes to the bill's title, not to the page's body: a keyboard user keeps their place
  if (document.activeElement === notice) $('title').focus()
  notice.hidden = true
}

// POS pushes, and other guests' claims and payments, arrive here; the first message is the current state.
function follow() {
  stream = new EventSource(`${base}/stream`)
  stream.addEventListener('open', () => {
    $('live').textContent = 'Live: updates as the restaurant changes the bill.'
    inTouch()
  })
  stream.addEventListener('error', () => {
    // a refused stream (too many open pages) is not retried by the browser
    const closed = stream.readyState === EventSource.CLOSED
    $('live').textContent = closed ? 'Live updates stopped: reload the page to see the latest.' : 'Reconnecting…'
    // refused for a bill removed while the page was away (a restart of `serve --memory`, a reset)
    if (closed) reload().catch((error) => error.code === 'not_found' && closeTable(guestMessage(error)))
  })
  stream.addEventListener('check', (message) => {
    streamed++
    // a request may fail while the stream stays open: its next message says the restaurant answers again
    inTouch()
    render(JSON.parse(message.data))
  })
  // a snapshot restored: the bill is as it was saved, and this tab's claims and payments may not be on it
  stream.addEventListener('reset', () => {
    forgetClaims()
    notify('The restaurant reset this bill: claim again what you had.')
  })
  stream.addEventListener('gone', () => {
    stream.close()
    closeTable('The restaurant has removed this bill. Please ask the staff for help.')
  })
}

/** The location's currency; plain numbers if it cannot be had. */
async function loadCurrency() {
  const place = await request(`${base}/location`).catch(() => null)
  if (!place) return
  placeShown = place.id
  money = currency(place.currency)
  $('place').replaceChildren(isolated(place.name))
}

$('amount').addEventListener('input', () => {
  payFor = 'other'
  document.querySelector('input[name="for"][value="other"]').checked = true
  renderAmount()
})
for (const radio of document.querySelectorAll('input[name="for"]')) {
  radio.addEventListener('change', () => {
    payFor = radio.value
    renderAmount()
    if (payFor === 'other') $('amount').select()
  })
}
for (const radio of document.querySelectorAll('input[name="tip"]')) radio.addEventListener('change', updatePayButton)
$('pay-form').addEventListener('submit', pay)
$('feedback-form').addEventListener('submit', sendFeedback)
$('live').textContent = 'Connecting…'
loadCurrency()
  .then(reload)
  .then(follow)
  .catch((error) => {
    if (error.code === 'not_found') closeTable(guestMessage(error))
    else notify(guestMessage(error), 'error')
  })
