import {setImmediate} from 'node:timers/promises'
import {type H3Event, setResponseStatus} from 'h3'
import {Deleted} from '../../domain/schemas.js'
import {
  exportSnapshot,
  renderSnapshot,
  type SavedSnapshot,
  Snapshot,
  SnapshotInput,
  SnapshotName,
} from '../../domain/snapshots.js'
import {SnapshotDocument, snapshotDocument} from '../../domain/snapshot-document.js'
import {SNAPSHOT_BODY_LIMIT} from '../../shared/read-at-most.js'
import {accountOf} from '../internal/auth.js'
import {readJson, readJsonInTurns, readParam} from '../internal/body.js'
import {pageOf, readListQuery} from '../internal/list.js'
import type {OperationSpec} from '../operations.js'

/** An import's document, whose records are checked a few hundred at a time: requests get in between. */
const ImportedDocument = snapshotDocument(() => setImmediate())

const byNewest = (a: SavedSnapshot, b: SavedSnapshot) =>
  b.created_at.localeCompare(a.created_at) || a.name.localeCompare(b.name)

// h3 runs `GET` and `DELETE /sim/snapshots/import`, the import's own path, as these routes with no name: it is `import`
const RoutedName = SnapshotName.prefault('import')

const nameOf = (event: H3Event) => readParam(event, 'name', RoutedName)

/** Saved states of an account, restored in one unit of work (docs/snapshots.md). */
export const snapshotOperations: OperationSpec[] = [
  {
    id: 'saveSnapshot',
    summary: "Save the account's records and the clock's offset under a name, replacing a snapshot of that name",
    body: SnapshotInput,
    response: Snapshot,
    status: [201],
    async handler(event, {service}) {
      const {name} = await readJson(event, SnapshotInput)
      const snapshot = await service.snapshots.save(accountOf(event), name)
      setResponseStatus(event, 201)
      return renderSnapshot(snapshot)
    },
  },
  {
    id: 'listSnapshots',
    summary: "The account's snapshots, newest first",
    response: Snapshot,
    list: true,
    async handler(event, {service}) {
      const query = readListQuery(event)
      // a name saved again is new: newest by when each was saved, names in order within one millisecond
      const saved = await service.snapshots.list(accountOf(event))
      const newest = saved.sort(byNewest).map(renderSnapshot)
      return pageOf(newest, query, (snapshot) => snapshot.name)
    },
  },
  {
    id: 'getSnapshot',
    summary: 'A snapshot: when it was saved and what it holds',
    response: Snapshot,
    errors: ['not_found'],
    handler: async (event, {service}) => renderSnapshot(await service.snapshots.saved(accountOf(event), nameOf(event))),
  },
  {
    id: 'deleteSnapshot',
    summary: 'Delete a snapshot',
    response: Deleted,
    errors: ['not_found'],
    async handler(event, {service}) {
      const name = nameOf(event)
      await service.snapshots.remove(accountOf(event), name)
      return {id: name, object: 'snapshot', deleted: true}
    },
  },
  {
    id: 'restoreSnapshot',
    summary: 'Make the account exactly what the snapshot saved; the request log and faults stay',
    response: Snapshot,
    errors: ['not_found', 'payload_too_large', 'limit_reached'],
    async handler(event, {service, dispatcher}) {
      const name = nameOf(event)
      const account = accountOf(event)
      // between clock changes: the restore sets the clock its deliveries fall due on
      return renderSnapshot(await dispatcher.restore(() => service.snapshots.restore(account, name)))
    },
  },
  {
    id: 'exportSnapshot',
    summary: 'The snapshot as one self-contained JSON document, which import takes back',
    response: SnapshotDocument,
    errors: ['not_found', 'payload_too_large'],
    handler: async (event, {service}) => exportSnapshot(await service.snapshots.get(accountOf(event), nameOf(event))),
  },
  {
    id: 'importSnapshot',
    summary: "Store an exported snapshot in the caller's account under the document's name; ids are kept",
    body: SnapshotDocument,
    response: Snapshot,
    status: [201],
    errors: ['limit_reached'],
    async handler(event, {service}) {
      const document = await readJsonInTurns(event, ImportedDocument, SNAPSHOT_BODY_LIMIT)
      const snapshot = await service.snapshots.import(accountOf(event), document)
      setResponseStatus(event, 201)
      return renderSnapshot(snapshot)
    },
  },
]
