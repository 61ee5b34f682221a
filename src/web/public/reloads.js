// What the dashboard's live reloads keep of what the reader was doing: the newest answer, open details, the focus.
import {el} from './dom.js'

/** Events, deliveries and requests whose details are open, by id: a rebuild keeps them open. */
const openDetails = new Set()

/** `details` for the record `id`, open if it was before a rebuild, and noted as it opens and closes. */
export function keptOpen(id, ...children) {
  const details = el('details', {open: openDetails.has(id)}, ...children)
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

/** Runs `rebuild`; a control it rebuilt while it had the focus gets it back (found by its label). */
export function keepingFocus(rebuild) {
  const label = document.activeElement?.getAttribute('aria-label')
  rebuild()
  if (label && document.activeElement === document.body) document.querySelector(`[aria-label="${CSS.escape(label)}"]`)?.focus()
}
