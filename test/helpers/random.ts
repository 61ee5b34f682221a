/** A seeded generator of numbers in [0, 1) (mulberry32): the same seed gives the same numbers. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** Picks one of `values` with `random`: the same seed picks the same ones. */
export const pickerOf =
  (random: () => number) =>
  <T>(values: readonly T[]): T =>
    values[Math.floor(random() * values.length)]!
