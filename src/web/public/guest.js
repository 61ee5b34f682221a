import {$, el, idempotencyKey, money, parseMoney, request} from './dom.js'

// The page lives at /t/{token}; its API is under the same path, so the token is the only credential.
const base = location.pathname.replace(/\/+$/, '')
const CHECK_STATUS = {open: 'Open', closed: 'Closed', voided: 'Voided'}
const PAYMENT_STATUS = {unpaid: 'Nothing paid yet', partially_paid: 'Partly paid', paid: 'Paid in full'}
// this browser's payments, kept across reloads of the tab, for the demo's refund button
const paymentsKey = `tablepay:payments:${base}`

let check = null
let amountTouched = false

function notify(text, kind = 'info') {
  const notice = $('notice')
  notice.textContent = text
  notice.dataset.kind = kind
  notice.setAttribute('role', kind === 'error' ? 'alert' : 'status')
  notice.hidden = false
  // the forms are far down on a phone: bring a refusal into view
  if (kind === 'error') notice.scrollIntoView({block: 'center'})
}

/** Runs a guest action with its button disabled; an error is shown, not thrown. */
async function act(button, action) {
  button.disabled = true
  try {
    await action()
  } catch (error) {
    notify(error.message, 'error')
  } finally {
    button.disabled = false
  }
}

const post = (path, body) => request(`${base}${path}`, {method: 'POST', body, headers: {'idempotency-key': idempotencyKey()}})

const left = (item) => Math.round((item.quantity - item.claimed_quantity) * 1000) / 1000

function renderItem(item) {
  const open = check.status === 'open'
  const available = left(item)
  const claim = el(
    'button',
    {type: 'button', class: 'secondary', 'aria-label': `Claim ${item.name}`, disabled: !open || available <= 0},
    available > 0 ? 'Claim' : 'All claimed',
  )
  claim.addEventListener('click', () =>
    act(claim, async () => {
      const quantity = Math.min(1, available)
      await post('/claims', {items: [{external_id: item.external_id, quantity}]})
      notify(`You claimed ${quantity} × ${item.name}.`)
      await reload()
    }),
  )
  return el(
    'li',
    {class: 'item'},
    el(
      'div',
      {class: 'item-text'},
      el('strong', {}, item.name),
      item.note ? el('span', {class: 'note'}, item.note) : null,
      el('span', {class: 'meta'}, `${item.quantity} × ${money(item.price_cents)} · ${item.claimed_quantity} of ${item.quantity} claimed`),
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
  $('totals').replaceChildren(...rows.flatMap(([label, cents]) => [el('dt', {}, label), el('dd', {id: `total-${label.toLowerCase()}`}, money(cents))]))
}

function tipCents(amount) {
  const percent = Number(document.querySelector('input[name="tip"]:checked')?.value ?? 0)
  return Math.round((amount * percent) / 100)
}

function updatePayButton() {
  const amount = parseMoney($('amount').value)
  $('pay-button').textContent = Number.isNaN(amount) ? 'Pay' : `Pay ${money(amount + tipCents(amount))}`
}

function render(next) {
  check = next
  document.title = `Table ${check.table.number} · Tablepay`
  $('title').textContent = `Table ${check.table.number}`
  $('check-status').textContent = CHECK_STATUS[check.status]
  $('check-status').dataset.status = check.status
  $('payment-status').textContent = PAYMENT_STATUS[check.payment_status]
  $('payment-status').dataset.status = check.payment_status
  $('items').replaceChildren(...(check.items.length ? check.items.map(renderItem) : [el('li', {class: 'hint'}, 'No items yet.')]))
  renderTotals()
  const payable = check.status === 'open' && check.amount_due_cents > 0
  $('pay-form').hidden = !payable
  $('nothing-due').hidden = payable
  $('nothing-due').textContent = check.status === 'open' ? 'Nothing left to pay.' : `This check is ${check.status}.`
  if (!amountTouched) $('amount').value = money(check.amount_due_cents).replaceAll(',', '')
  updatePayButton()
}

const storedPayments = () => JSON.parse(sessionStorage.getItem(paymentsKey) ?? '[]')

function keepPayment(payment) {
  const payments = storedPayments().filter((p) => p.id !== payment.id)
  sessionStorage.setItem(paymentsKey, JSON.stringify([...payments, payment]))
  renderPayments()
}

function renderPayments() {
  const payments = storedPayments()
  $('payments-section').hidden = payments.length === 0
  $('payments').replaceChildren(
    ...payments.map((payment) => {
      const refundable = payment.amount_cents + payment.tip_cents - payment.amount_refunded_cents
      const refund = el('button', {type: 'button', class: 'secondary', 'aria-label': `Refund ${money(payment.amount_cents)}`, disabled: refundable <= 0}, 'Refund')
      refund.addEventListener('click', () =>
        act(refund, async () => {
          keepPayment(await post(`/payments/${encodeURIComponent(payment.id)}/refund`, {}))
          notify('Payment refunded.')
          await reload()
        }),
      )
      const tip = payment.tip_cents ? ` + ${money(payment.tip_cents)} tip` : ''
      const status = payment.amount_refunded_cents > 0 ? `${payment.status.replace('_', ' ')} (${money(payment.amount_refunded_cents)})` : payment.status
      return el('li', {class: 'payment'}, el('span', {}, `${money(payment.amount_cents)}${tip} · ${status}`), refund)
    }),
  )
}

async function pay(event) {
  event.preventDefault()
  const amount = parseMoney($('amount').value)
  if (Number.isNaN(amount) || amount <= 0) {
    notify('Enter an amount such as 12.50.', 'error')
    return
  }
  await act($('pay-button'), async () => {
    const body = {amount_cents: amount, tip_cents: tipCents(amount)}
    if ($('decline').checked) body.simulate = 'decline'
    const payment = await post('/payments', body)
    keepPayment(payment)
    amountTouched = false
    notify(`Paid ${money(payment.amount_cents + payment.tip_cents)}. Thank you!`)
    await reload()
  })
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
    $('feedback-form').hidden = true
    $('feedback-done').hidden = false
  })
}

async function reload() {
  render(await request(`${base}/check`))
}

// POS pushes, and other guests' claims and payments, arrive here; the first message is the current state.
function follow() {
  const stream = new EventSource(`${base}/stream`)
  stream.addEventListener('open', () => ($('live').textContent = 'Live: updates as the restaurant changes the check.'))
  stream.addEventListener('error', () => ($('live').textContent = 'Reconnecting…'))
  stream.addEventListener('check', (message) => render(JSON.parse(message.data)))
  stream.addEventListener('gone', () => {
    stream.close()
    $('live').textContent = ''
    notify('The restaurant removed this check. Ask the staff for help.', 'error')
    for (const form of document.querySelectorAll('form')) form.hidden = true
  })
}

$('amount').addEventListener('input', () => {
  amountTouched = true
  updatePayButton()
})
for (const radio of document.querySelectorAll('input[name="tip"]')) radio.addEventListener('change', updatePayButton)
$('pay-form').addEventListener('submit', pay)
$('feedback-form').addEventListener('submit', sendFeedback)
renderPayments()
reload()
  .then(follow)
  .catch((error) => notify(error.message, 'error'))
