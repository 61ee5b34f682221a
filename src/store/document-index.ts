import type {Damage} from './damage.js'
import type {Documents, Measured} from './documents.js'

/**
 * The documents' index: what each document held (its seq, count and
 * CRC-32) when the store last wrote it or a start last read it. A
 * compaction writes it after every document it rewrites and before it drops
 * the journal, so a start can tell a document put back from an older copy,
 * or swapped for another, from one that a compaction left unchanged, or was
 * killed while rewriting (docs/storage.md, "Integrity checks").
 */
export const INDEX_FILE = 'documents.json'

/** One document as the index lists it. */
interface Listed {
  collection: string
  seq: number
  count: number
  crc: number
}

/** The index as read: the seq it was written at (the journal that follows begins after it), and what it lists. */
export interface DocumentIndex {
  path: string
  seq: number
  listed: Map<string, Listed>
}

const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0

function isListed(value: unknown): value is Listed {
  const listed = value as Partial<Listed>
  return typeof listed.collection === 'string' && isCount(listed.seq) && isCount(listed.count) && isCount(listed.crc)
}

/**
 * Reads the index; undefined when there is none (a data dir written before
 * there was one, or one whose first start has not ended) or when it is
 * damaged, which `damage` learns, and --repair writes it again.
 *
 * @example
 * const index = await readIndex(documents, damage)
 */
export async function readIndex(documents: Documents, damage: Damage): Promise<DocumentIndex | undefined> {
  const before = damage.dropped.length
  const doc = await documents.readApart<unknown>(INDEX_FILE, damage)
  if (!doc || damage.dropped.length > before) return undefined
  if (!doc.records.every(isListed)) {
    damage.found(doc.path, 'is corrupt: an entry lacks a field or has a bad one')
    return undefined
  }
  return {path: doc.path, seq: doc.seq, listed: new Map(doc.records.map((listed) => [listed.collection, listed]))}
}

/**
 * Compares each document as read with what the index lists, and the index
 * with the journal that follows it (its first seq, `journalStart`, undefined
 * when there is no journal). A document written at an earlier seq than the
 * index lists for it was put back from an older copy; at the same seq with
 * other records, it was put back from another copy or swapped. One written
 * at a later seq is the work of a compaction killed before it wrote the
 * index: the journal it would have dropped is still there. A document
 * damaged otherwise is not compared: its damage is reported already.
 *
 * @example
 * checkIndex(index, documents.measured(), await journalStart(dir), damage)
 */
export function checkIndex(
  index: DocumentIndex,
  measured: readonly Measured[],
  journalStart: number | undefined,
  damage: Damage,
): void {
  for (const doc of measured) {
    const listed = index.listed.get(doc.name)
    if (!listed || doc.damaged || doc.state === 'missing' || doc.state === 'foreign') continue
    if (doc.seq < listed.seq) {
      damage.found(
        doc.path,
        `is older than the rest of the data dir: it was written at seq ${doc.seq}, and ${INDEX_FILE} lists ` +
          `the one written at seq ${listed.seq} (it was put back from an older copy)`,
      )
    } else if (doc.seq === listed.seq && (doc.count !== listed.count || doc.crc !== listed.crc)) {
      const holds =
        doc.count === listed.count ? 'records that differ from those' : `${doc.count} records, not the ${listed.count}`
      damage.found(
        doc.path,
        `is not the document ${INDEX_FILE} lists: it holds ${holds} written at seq ${listed.seq} ` +
          '(it was put back from another copy, or swapped for another document)',
      )
    }
  }
  if (journalStart !== undefined && journalStart > index.seq + 1) {
    damage.found(
      index.path,
      `was written at seq ${index.seq}, but the journal begins at seq ${journalStart}: the changes from ` +
        `seq ${index.seq + 1} to ${journalStart - 1} are in neither (the documents were put back from an older copy, ` +
        'or journal files were removed)',
    )
  }
}

/**
 * Whether the index should be written again: there is none, or a document
 * holds other than it lists (the work of a compaction killed before it
 * wrote the index, or of a start on a data dir of an earlier version).
 *
 * @example
 * if (indexStale(index, documents.measured())) await writeIndex(documents, seq)
 */
export function indexStale(index: DocumentIndex | undefined, measured: readonly Measured[]): boolean {
  if (!index) return true
  return measured.some((doc) => {
    const listed = index.listed.get(doc.name)
    return !listed || listed.seq !== doc.seq || listed.count !== doc.count || listed.crc !== doc.crc
  })
}

/**
 * Writes the index (temp file + rename, like a document) as of `seq`,
 * listing every document as the store last read or wrote it. A compaction
 * calls it once its documents are renamed, before the journal is dropped.
 *
 * @example
 * await writeIndex(documents, seq)
 */
export async function writeIndex(documents: Documents, seq: number): Promise<void> {
  const records = documents
    .measured()
    .filter((doc) => doc.state !== 'missing' && doc.state !== 'foreign')
    .map(({name, seq, count, crc}): Listed => ({collection: name, seq, count, crc}))
  await documents.writeApart(INDEX_FILE, {seq, records})
}
