// A process that writes a data dir as a server would, then ends as a kill does (no stop, no compaction at exit).
// `fill DIR`: many versions of one check; told `go` (once a file size limit is set on it), one more version past
// that limit, committed in the same turn as a compaction starts. `commit DIR`: one more check.
import {Store} from '../../dist/store/store.js'

const [mode, dir] = process.argv.slice(2)

const check = (i, version, note = '') => ({
  ...{id: `chk_${i}`, object: 'check', external_id: `t${i}`, location_id: 'loc_1', table: {number: String(i)}},
  ...{status: 'open', version, items: [], totals: {subtotal_cents: 1, tax_cents: 0, total_cents: 1}},
  ...{amount_paid_cents: 0, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z'},
  ...{account_id: 'acct_1', guest_token: `gt_${i}`, note},
})

const store = await Store.open({dir, compactAfterBytes: 1 << 30})
if (mode === 'commit') {
  await store.commit([['checks', 'chk_after', {...check(1, 1), id: 'chk_after', guest_token: 'gt_after'}]])
  process.exit(0)
}
for (let version = 1; version <= 300; version++) await store.commit([['checks', 'chk_0', check(0, version)]])
process.on('message', async () => {
  const line = store.commit([['checks', 'chk_0', check(0, 301, 'x'.repeat(20_000))]])
  const compaction = store.compact()
  const [written, compacted] = await Promise.allSettled([line, compaction])
  process.send({written: written.status, compacted: compacted.status})
  process.exit(0)
})
process.send('ready')
