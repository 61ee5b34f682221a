import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {acceptCheckPush, acceptExternalId} from '../../src/domain/check-push-fast.js'
import {MAX_CENTS} from '../../src/domain/money.js'
import {CheckPush, ExternalCheckId} from '../../src/domain/schemas.js'

const FIXTURES = join(import.meta.dirname, '../../fixtures/checks')
const fixtures = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.json'))
  .map((name) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>)

const base = {
  location_id: 'loc_1',
  version: 3,
  table: {number: '12'},
  status: 'open',
  items: [
    {external_id: 'a', name: 'Burrata', quantity: 2, price_cents: 1400},
    {external_id: 'b', name: 'Steak', quantity: 0.5, price_cents: 2600, note: 'medium'},
  ],
  totals: {subtotal_cents: 4100, tax_cents: 410, total_cents: 4510},
}

const VALUES: unknown[] = [
  undefined,
  null,
  true,
  '',
  'x',
  '1',
  'x'.repeat(32),
  'x'.repeat(33),
  'x'.repeat(64),
  'x'.repeat(65),
  'x'.repeat(200),
  'x'.repeat(201),
  'x'.repeat(500),
  'x'.repeat(501),
  'open',
  'closed',
  'voided',
  'paid',
  0,
  -0,
  -1,
  1,
  1.5,
  0.001,
  1.0005,
  1.2345,
  1_000_000,
  1_000_000.5,
  1_000_001,
  MAX_CENTS,
  MAX_CENTS + 1,
  2 ** 53,
  [],
  {},
  {number: '1'},
]

const copy = <T>(value: T): T => structuredClone(value)

/** `body` with the value at `path` set to `value` (removed for undefined). */
function withValue(body: unknown, path: (string | number)[], value: unknown): unknown {
  const out = copy(body) as Record<string | number, unknown>
  let at = out
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>
  const last = path.at(-1)!
  if (value === undefined) delete at[last]
  else at[last] = copy(value)
  return out
}

/** Bodies around `body`: every field (and one level down) set to each of VALUES, and a few known traps. */
function variants(body: Record<string, unknown>): unknown[] {
  const out: unknown[] = [body, {...body, extra: 1}, [], null, 'x']
  const paths: (string | number)[][] = []
  for (const key of [...Object.keys(base), 'extra']) paths.push([key])
  for (const key of ['number', 'extra']) paths.push(['table', key])
  for (const key of ['subtotal_cents', 'tax_cents', 'total_cents', 'extra']) paths.push(['totals', key])
  for (const key of ['external_id', 'name', 'quantity', 'price_cents', 'note', 'extra']) paths.push(['items', 0, key])
  for (const path of paths) {
    if (path[0] === 'items' && !(Array.isArray(body.items) && body.items.length > 0)) continue
    if (!(path[0]! in body) && path.length > 1) continue
    for (const value of VALUES) out.push(withValue(body, path, value))
  }
  const items = (body.items as unknown[]) ?? []
  if (items.length > 0) {
    out.push(withValue(body, ['items'], [...items, items[0]]))
    const many = Array.from({length: 40}, (_, i) => ({external_id: `i${i}`, name: 'n', quantity: 1, price_cents: 1}))
    out.push(withValue(body, ['items'], many), withValue(body, ['items'], [...many, many[3]]))
    out.push(
      withValue(
        body,
        ['items'],
        Array.from({length: 501}, (_, i) => ({...many[0], external_id: `j${i}`})),
      ),
    )
    out.push(withValue(body, ['items', 0], {external_id: 'big', name: 'n', quantity: 1000, price_cents: MAX_CENTS}))
  }
  return out
}

describe('acceptCheckPush', () => {
  it('accepts exactly what the CheckPush schema accepts, and gives the same output', () => {
    let accepted = 0
    for (const body of [base, ...fixtures].flatMap(variants)) {
      const parsed = CheckPush.safeParse(body)
      const fast = acceptCheckPush(body)
      const shown = JSON.stringify(body)?.slice(0, 300)
      expect(fast !== undefined, shown).toBe(parsed.success)
      if (fast === undefined) continue
      accepted++
      expect(fast, shown).toStrictEqual(parsed.data)
      expect(JSON.stringify(fast), shown).toBe(JSON.stringify(parsed.data))
    }
    expect(accepted).toBeGreaterThan(100)
  })

  it('takes an external id the schema takes, and leaves any other to the schema', () => {
    for (const id of [
      't12',
      'a'.repeat(64),
      'a'.repeat(65),
      '',
      'a/b',
      'é',
      'x.y_z:~@+=-',
      '.',
      '..',
      '...',
      7,
      undefined,
    ]) {
      expect(acceptExternalId(id) !== undefined, String(id)).toBe(ExternalCheckId.safeParse(id).success)
    }
  })

  it('refuses . and .. alone, which a URL resolves away (no request could name them), and takes ... and a.b', () => {
    expect(['.', '..', '...', 'a.b', '.a'].map((id) => ExternalCheckId.safeParse(id).success)).toEqual([
      false,
      false,
      true,
      true,
      true,
    ])
  })
})
