import {type Limits, limitOf} from '../domain/limits.js'
import type {Collections} from '../domain/records.js'
import {SnapshotDocument} from '../domain/snapshot-document.js'
import {type SnapshotCollection, STORED_COLLECTIONS, storedId} from '../domain/snapshots.js'
import type {Service} from '../service/index.js'
import type {Reader} from '../service/storage.js'
import {UnusableInputError} from '../shared/unusable-input.js'
import {readStartFile} from './start-files.js'
import type {Dispatcher} from '../webhooks/dispatcher.js'
import {READABLE} from '../domain/parse-messages.js'

/** What to do with a file that is not an exported snapshot. */
const HINT = 'Make one with `tablepay snapshots export NAME -o FILE`.'

/** The exported snapshot in `file`, checked; an unusable file is a wrong command line (exit 2). */
async function readSnapshotFile(file: string): Promise<SnapshotDocument> {
  const result = SnapshotDocument.safeParse(await readStartFile(file, 'serve --import', HINT), READABLE)
  if (!result.success) {
    const issue = result.error.issues[0]!
    throw new UnusableInputError(
      `serve --import: ${file} is not an exported snapshot: ${issue.path.join('.') || '(root)'}: ${issue.message}. ${HINT}`,
    )
  }
  return result.data
}

/**
 * The exported snapshots of `serve --import FILE…`, read and checked, each naming an account the storage has:
 * all of it before the server listens, so an unusable file leaves nothing begun (exit 2).
 */
export async function readImports(
  reader: Reader,
  files: readonly string[],
  limits?: Partial<Limits>,
): Promise<SnapshotDocument[]> {
  const documents = await Promise.all(files.map(readSnapshotFile))
  const endpointLimit = limitOf(limits, 'webhook_endpoints')
  for (const [i, document] of documents.entries()) {
    if (!(await reader.get('accounts', document.account)))
      throw new UnusableInputError(
        `serve --import: ${files[i]} is a snapshot of account ${document.account}, which this server does not have: add it with --seed, or import the file into an account with \`tablepay snapshots import\`.`,
      )
    const endpoints = document.records.webhook_endpoints?.length ?? 0
    if (endpoints > endpointLimit)
      throw new UnusableInputError(
        `serve --import: ${files[i]} holds more webhook endpoints (${endpoints}) than an account may have (${endpointLimit}): keep at most ${endpointLimit} in it.`,
      )
  }
  await refuseClashes(reader, documents, files)
  return documents
}

/** A document's stored ids by collection, and its checks' guest tokens: what a restore must not take from another account. */
function keysOf(document: SnapshotDocument): {ids: Map<SnapshotCollection, string[]>; tokens: string[]} {
  const records = (name: SnapshotCollection) => (document.records[name] ?? []) as Collections[SnapshotCollection][]
  const ids = new Map(STORED_COLLECTIONS.map((name) => [name, records(name).map((record) => storedId(name, record))]))
  return {ids, tokens: (records('checks') as Collections['checks'][]).map((check) => check.guest_token)}
}

/**
 * Refuses the start when a file's restore would be refused in its turn (docs/snapshots.md): one of its ids or
 * guest tokens held by an account no earlier file restores, or by an earlier file of another account. Each
 * restore then goes through, and a refused start began nothing (exit 2).
 */
async function refuseClashes(reader: Reader, documents: readonly SnapshotDocument[], files: readonly string[]) {
  const earlier = new Map<string, {file: string; ids: Map<SnapshotCollection, Set<string>>; tokens: Set<string>}>()
  for (const [i, document] of documents.entries()) {
    const {account} = document
    const clash = (what: string, holder: string) =>
      new UnusableInputError(
        `serve --import: ${files[i]} holds ${what}, which ${holder} holds too (an export keeps its ids): import it into that account, or start without one of the two.`,
      )
    const {ids, tokens} = keysOf(document)
    for (const [name, list] of ids) {
      for (const held of await reader.heldElsewhere(name, list, account))
        if (!earlier.has(held.account_id)) throw clash(`${name} ${held.id}`, `account ${held.account_id}`)
      for (const [other, {file, ids: theirs}] of earlier) {
        const shared = other === account ? undefined : list.find((id) => theirs.get(name)!.has(id))
        if (shared !== undefined) throw clash(`${name} ${shared}`, file)
      }
    }
    // a guest token's holder is not named: a table link is the guest's (snapshot-errors.ts)
    for (const held of await reader.guestTokensElsewhere(tokens, account))
      if (!earlier.has(held.account_id)) throw clash(`a check with guest token ${held.id}`, "another account's check")
    for (const [other, {file, tokens: theirs}] of earlier) {
      const shared = other === account ? undefined : tokens.find((one) => theirs.has(one))
      if (shared !== undefined) throw clash(`a check with guest token ${shared}`, file)
    }
    const sets = new Map([...ids].map(([name, list]) => [name, new Set(list)]))
    earlier.set(account, {file: files[i]!, ids: sets, tokens: new Set(tokens)})
  }
}

/** Each of `documents` stored in the account it names and restored there, in their order (docs/snapshots.md). */
export async function importAtStart(
  service: Service,
  dispatcher: Dispatcher,
  documents: readonly SnapshotDocument[],
): Promise<void> {
  for (const document of documents) {
    await service.snapshots.import(document.account, document)
    await dispatcher.restore(() => service.snapshots.restore(document.account, document.name))
  }
}
