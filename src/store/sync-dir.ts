import {open} from 'node:fs/promises'

/**
 * Makes the names `dir` holds durable (--fsync): a file created or renamed
 * there is not on the disk until its directory is synced, however often the
 * file itself is (docs/storage.md, "Files").
 */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
