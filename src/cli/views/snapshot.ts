import type {Snapshot} from '../../client/client.js'
import {formatDateTime, plural} from './format.js'
import {printable} from './printable.js'
import {renderTable} from './table.js'

/** What a snapshot holds, in a few words: `3 checks, 12 events, 1 webhook endpoint`. */
export function describeCounts({counts}: Snapshot): string {
  const shown: [string, string, string?][] = [
    ['checks', 'check'],
    ['events', 'event'],
    ['deliveries', 'delivery', 'deliveries'],
    ['webhook_endpoints', 'webhook endpoint'],
  ]
  return shown.map(([key, noun, many]) => plural(counts[key] ?? 0, noun, many)).join(', ')
}

/** `snapshots list`: one row per snapshot, newest first. */
export function renderSnapshotList(snapshots: Snapshot[]): string {
  return renderTable(snapshots, [
    {header: 'NAME', value: (s) => s.name},
    {header: 'SAVED', value: (s) => formatDateTime(s.created_at)},
    {header: 'HOLDS', value: describeCounts},
  ])
}

/** One line on a snapshot saved, restored or imported. */
export const renderSnapshotDone = (done: string, snapshot: Snapshot): string =>
  printable(`${done} ${snapshot.name} (${describeCounts(snapshot)}, saved ${formatDateTime(snapshot.created_at)}).`)
