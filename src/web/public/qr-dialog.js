// The dashboard's QR dialog: a check's code, large enough to scan from the screen.
import {$, isolated} from './dom.js'
import {focusOn} from './reloads.js'

/** The control that opened the dialog (its focusKey): a live reload while it is open replaces it. */
let opener = null

/** A check's QR code, large enough to scan from the screen: on demand, so that each check stays one line. */
export function showQr(check, openedBy) {
  opener = openedBy
  $('qr-title').replaceChildren('Table ', isolated(check.table.number))
  $('qr-image').src = `${new URL(check.guest_url).pathname}/qr.svg`
  $('qr-image').alt = `QR code of table ${check.table.number}`
  $('qr-link').href = check.guest_url
  $('qr-link').textContent = check.guest_url
  $('qr').showModal()
}

$('qr-close').addEventListener('click', () => $('qr').close())
// the browser gives the focus back to the element that opened the dialog, and to none once a live reload replaced
// it (the focus stays in the closed dialog): the control of the same key has it
$('qr').addEventListener('close', () => focusOn(opener))
// a click on the backdrop closes it too: such a click is the dialog's own, outside its box
$('qr').addEventListener('click', (event) => {
  const box = $('qr').getBoundingClientRect()
  const inside = event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom
  if (event.target === $('qr') && !inside) $('qr').close()
})
