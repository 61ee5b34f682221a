// Shared by the table page and the dashboard. Data from the server is only
// ever set as text (text nodes, attributes), never parsed as HTML.

/** The element with this id. */
export const $ = (id) => document.getElementById(id)

/**
 * A new element: `props` become attributes, strings among `children` become
 * text nodes.
 * @example el('li', {class: 'item'}, el('strong', {}, item.name), ' ', item.note)
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue
    node.setAttribute(name, value === true ? '' : String(value))
  }
  node.append(...children.flat().filter((child) => child !== undefined && child !== null && child !== false))
  return node
}

/**
 * Text from the POS, set apart from what is around it: its bidirectional controls (U+202E shows `abc` as `cba`)
 * reorder only itself, never the words and amounts of the sentence or row it is in.
 * @example notify(['You claimed 1 × ', isolated(item.name), '.'])
 */
export const isolated = (text) => el('bdi', {}, text)

/**
 * Amounts of one currency, in the reader's language: minor units shown as
 * `€24.50` (or `24,50 €`), written into an input as `24.50`, and read back.
 * Without a currency, plain numbers.
 * @example const eur = currency('EUR'); eur.format(2450) // '€24.50' in English
 */
const QUANTITY = new Intl.NumberFormat(undefined, {maximumFractionDigits: 3})

/** A quantity (at most to the thousandth) as the reader's language writes numbers: 1.5 is "1,5" in German. */
export const quantity = (n) => QUANTITY.format(n)

export function currency(code) {
  const format = new Intl.NumberFormat(undefined, code ? {style: 'currency', currency: code} : {minimumFractionDigits: 2})
  // minor units per major unit: 100 for EUR, 1 for JPY
  const digits = code ? format.resolvedOptions().maximumFractionDigits : 2
  const unit = 10 ** digits
  const pattern = new RegExp(`^(\\d{1,13})(?:[.,](\\d{1,${Math.max(digits, 1)}}))?$`)
  // as `plain` writes it, whatever the language: `3.168` is 3.168 KWD in German too, where `.` groups thousands
  const plainText = new RegExp(`^\\d{1,13}${digits > 0 ? `(?:\\.\\d{1,${digits}})?` : ''}$`)
  return {
    format: (cents) => format.format(cents / unit),
    /** For an input: `24.50`, no symbol, no grouping. */
    plain: (cents) => (cents / unit).toFixed(digits),
    /** `12`, `12.5`, `12,50`, or grouped as `format` shows it (`1,747.50`), as minor units; NaN for anything else. */
    parse(text) {
      const trimmed = latinDigits(text.trim())
      const match = pattern.exec(plainText.test(trimmed) ? trimmed : ungrouped(trimmed).replace(DECIMAL, '.'))
      if (!match || (digits === 0 && match[2])) return Number.NaN
      return Number(match[1]) * unit + Number((match[2] ?? '').padEnd(digits, '0') || 0)
    },
  }
}

/**
 * How the reader's language writes 1234567890.5: `1,234,567,890.5` in English, `1.234.567.890,5` in German,
 * `1 234 567 890,5` in French, `1,23,45,67,890.5` in Indian English (groups of two above the thousands).
 */
const PARTS = new Intl.NumberFormat().formatToParts(1234567890.5)
const GROUP = PARTS.find((part) => part.type === 'group')?.value ?? ','
const DECIMAL = PARTS.find((part) => part.type === 'decimal')?.value ?? '.'
const GROUPS = PARTS.filter((part) => part.type === 'integer').map((part) => part.value.length)
// the digits of the last group, and of each before it but the first
const [LAST, OTHERS] = GROUPS.length > 2 ? [GROUPS.at(-1), GROUPS.at(-2)] : [3, 3]
const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const SEPARATOR = /\s/.test(GROUP) ? '\\s' : escaped(GROUP)
const GROUPED = new RegExp(
  `^[1-9]\\d{0,${OTHERS - 1}}(?:${SEPARATOR}\\d{${OTHERS}})*${SEPARATOR}\\d{${LAST}}(?=$|${escaped(DECIMAL)}\\d)`,
)

/** The digits the reader's language writes 1234567890 with: `١٢٣٤٥٦٧٨٩٠` in Arabic, as its keypads type them. */
const LOCAL_DIGITS = new Intl.NumberFormat(undefined, {useGrouping: false}).format(1234567890)

/** `text` with the reader's language's digits as ASCII ones: `١٢٫٥٠` → `12٫50`. */
const latinDigits = (text) =>
  text.replace(/\p{Nd}/gu, (digit) => {
    const at = LOCAL_DIGITS.indexOf(digit)
    return at === -1 ? digit : String((at + 1) % 10)
  })

/**
 * `text` without the separators of its thousands, when it is grouped as the reader's language groups them:
 * `1,747.50` → `1747.50` in English, `1.747,50` → `1747,50` in German, `1,00,000` → `100000` in Indian
 * English. Else as it is: `12,50` is a decimal.
 */
const ungrouped = (text) => (GROUPED.test(text) ? text.replace(new RegExp(SEPARATOR, 'g'), '') : text)

const busyCounts = new WeakMap()

/**
 * Runs `work` with `element` marked `aria-busy` until the last of the works
 * that overlap on it ends: assistive technology waits for it to announce
 * the result, and so can a test.
 * @example await busyWhile($('bill'), () => reload())
 */
export async function busyWhile(element, work) {
  busyCounts.set(element, (busyCounts.get(element) ?? 0) + 1)
  element.setAttribute('aria-busy', 'true')
  try {
    return await work()
  } finally {
    const left = busyCounts.get(element) - 1
    busyCounts.set(element, left)
    if (left === 0) element.removeAttribute('aria-busy')
  }
}

/** A time of day, local, to the second. */
export const clock = (iso) => new Date(iso).toLocaleTimeString('en-GB')

/** A key unique per action, so a retried request is not done twice; works outside secure contexts too. */
function idempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return 'web_' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

/** The keys of requests whose answer never came, by what they asked (`postOnce`). */
const UNANSWERED = 'tablepay:unanswered'
/** How many times a request whose answer was lost is sent again at once, and how long apart. */
const RESENDS = 2
const RESEND_AFTER_MS = 1000

/**
 * POSTs `body` to `url` as one action, under an `Idempotency-Key`: when the answer is lost on the way (a phone
 * between networks), the same request is sent again under the same key, and the server answers what it did, a
 * payment made once. Still unanswered, the key is kept (per tab) for that request: the guest's retry is the same
 * action (docs/pages.md, "Retries and taps").
 */
export async function postOnce(url, body) {
  const asked = `${url} ${JSON.stringify(body)}`
  const unanswered = JSON.parse(sessionStorage.getItem(UNANSWERED) ?? '{}')
  const key = unanswered[asked] ?? idempotencyKey()
  const keep = (kept) => sessionStorage.setItem(UNANSWERED, JSON.stringify(kept))
  for (let sent = 0; ; sent++) {
    try {
      const answer = await request(url, {method: 'POST', body, headers: {'idempotency-key': key}})
      delete unanswered[asked]
      keep(unanswered)
      return answer
    } catch (error) {
      const lost = !error.status
      if (lost) keep({...unanswered, [asked]: key})
      else {
        delete unanswered[asked]
        keep(unanswered)
      }
      if (!lost || sent === RESENDS) throw error
      await new Promise((resolve) => setTimeout(resolve, RESEND_AFTER_MS))
    }
  }
}

/** Fetches JSON; an error answer throws with the server's message (the one error body). */
export async function request(url, {method = 'GET', body, headers = {}} = {}) {
  const init = {method, headers: {accept: 'application/json', ...headers}}
  if (body !== undefined) {
    init.body = JSON.stringify(body)
    init.headers['content-type'] = 'application/json'
  }
  const response = await fetch(url, init)
  const data = await response.json().catch(() => null)
  if (!response.ok) {
    const error = new Error(data?.error?.message ?? `The server answered ${response.status}.`)
    error.status = response.status
    error.code = data?.error?.code
    error.details = data?.error?.details
    throw error
  }
  return data
}
