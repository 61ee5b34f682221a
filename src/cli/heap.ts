import {setFlagsFromString} from 'node:v8'

/** How far V8 lets the heap grow past what survived the last full collection, in percent. */
const HEAP_GROWING_PERCENT = 50

/**
 * Keeps a long-running server's heap near what it holds: by default V8 lets
 * the heap grow to up to four times what survives a collection while a
 * server allocates fast, so `serve` held about 700 MB after 1,000,000 pushes
 * for under 200 MB of data. Growing by half instead keeps it under 400 MB
 * for about 5% of throughput (docs/benchmarks.md, "Memory and restart").
 * V8 reads this setting at every collection, so it is set once the server
 * is up: reading a large data dir, where everything allocated survives,
 * would otherwise run a full collection at every half-step of growth (a
 * tenth of a restart's time at 1,000,000 pushes). A process started with
 * its own `--heap-growing-percent` keeps it.
 */
export function keepHeapNearLive(): void {
  const options = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]
  if (options.some((option) => option.startsWith('--heap-growing-percent'))) return
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
}
