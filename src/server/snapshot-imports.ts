import {SnapshotDocument} from '../domain/snapshots.js'
import type {Service} from '../service/index.js'
import type {Reader} from '../service/storage.js'
import {UnusableInputError} from '../shared/unusable-input.js'
import {readStartFile} from './start-files.js'
import type {Dispatcher} from '../webhooks/dispatcher.js'

/** What to do with a file that is not an exported snapshot. */
const HINT = 'Make one with `tablepay snapshots export NAME -o FILE`.'

/** The exported snapshot in `file`, checked; an unusable file is a wrong command line (exit 2). */
async function readSnapshotFile(file: string): Promise<SnapshotDocument> {
  const result = SnapshotDocument.safeParse(await readStartFile(file, 'serve --import', HINT))
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
export async function readImports(reader: Reader, files: readonly string[]): Promise<SnapshotDocument[]> {
  const documents = await Promise.all(files.map(readSnapshotFile))
  for (const [i, document] of documents.entries()) {
    if (!(await reader.get('accounts', document.account)))
      throw new UnusableInputError(
        `serve --import: ${files[i]} is a snapshot of account ${document.account}, which this server does not have: add it with --seed, or import the file into an account with \`tablepay snapshots import\`.`,
      )
  }
  return documents
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
