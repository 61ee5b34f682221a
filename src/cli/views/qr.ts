import type {Check} from '../../client/client.js'
import {printable} from './printable.js'
import {style} from './style.js'

/**
 * The check's QR code, to print in a terminal, with the link under it. With
 * colours it is drawn black on white with ANSI colours, which scans on any
 * terminal theme; without (a pipe, NO_COLOR) it is plain block characters,
 * dark modules as █, which scan when shown dark on light.
 *
 * @example
 * if (this.flags.qr) this.log(await renderGuestQr(check))
 */
export async function renderGuestQr(check: Pick<Check, 'guest_url'>): Promise<string> {
  // loaded only with --qr: start-up time matters
  const {default: qrcode} = await import('qrcode')
  const code =
    style.level > 0
      ? await qrcode.toString(check.guest_url, {type: 'terminal', small: true})
      : await qrcode.toString(check.guest_url, {type: 'utf8'})
  return `${code}\nScan to open the table page: ${printable(check.guest_url)}`
}
