// The dashboard's QR dialog: a check's code, large enough to scan from the screen.
import {$} from './dom.js'

/** A check's QR code, large enough to scan from the screen: on demand, so that each check stays one line. */
export function showQr(check) {
  $('qr-title').textContent = `Table ${check.table.number}`
  $('qr-image').src = `${new URL(check.guest_url).pathname}/qr.svg`
  $('qr-image').alt = `QR code of table ${check.table.number}`
  $('qr-link').href = check.guest_url
  $('qr-link').textContent = check.guest_url
  $('qr').showModal()
}

$('qr-close').addEventListener('click', () => $('qr').close())
// a click on the backdrop closes it too: such a click is the dialog's own, outside its box
$('qr').addEventListener('click', (event) => {
  const box = $('qr').getBoundingClientRect()
  const inside = event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom
  if (event.target === $('qr') && !inside) $('qr').close()
})
