import {getHeapStatistics, setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/**
 * The bytes this process's heap holds after full collections: what a server run in the test's process
 * keeps, for tests that pin what its memory grows by.
 */
export function liveHeap(): number {
  gc()
  gc()
  return getHeapStatistics().used_heap_size
}
