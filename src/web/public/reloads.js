// What the pages' live reloads keep of what the reader was doing: the newest answer, open details, the focus.
import {el} from './dom.js'

/**
 * A rebuilt control's name across rebuilds, as attributes: the record its row shows and what it is there
 * (`dlv_… Retry now`). Labels are no such name: two checks of one table number at two locations share theirs.
 * @example el('button', {type: 'button', ...focusKey(check.id, 'qr')}, 'QR')
 */
export const focusKey = (id, role) => ({'data-focus': `${id} ${role}`})

/** Focuses the control `key` names (a focusKey's value), if the page shows one. */
export const focusOn = (key) => key && document.querySelector(`[data-focus="${CSS.escape(key)}"]`)?.focus()

/** Events, deliveries and requests whose details are open, by id: a rebuild keeps them open. */
const openDetails = new Set()

/**
 * `details` for the record `id` whose `summary` holds `summary`, open if it was before a rebuild, and noted as it
 * opens and closes.
 */
export function keptOpen(id, summary, ...children) {
  const details = el('details', {open: openDetails.has(id)}, el('summary', focusKey(id, 'summary'), ...summary), ...children)
  details.addEventListener('toggle', () => (details.open ? openDetails.add(id) : openDetails.delete(id)))
  return details
}

/**
 * Loads with `load`, then shows what it loaded with `show` unless a later
 * call has started since: answers can arrive out of order, and an older one
 * must not replace a newer one.
 */
export function latestShown(load, show) {
  let started = 0
  return async () => {
    const call = ++started
    const loaded = await load()
    if (call === started) show(loaded)
  }
}

/** Runs `rebuild`; a control it rebuilt while it had the focus gets it back (found by its focusKey). */
export function keepingFocus(rebuild) {
  const key = document.activeElement?.dataset?.focus
  rebuild()
  if (document.activeElement === document.body) focusOn(key)
}
