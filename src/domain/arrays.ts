/**
 * Whether two lists hold the same elements (by identity) in the same order:
 * a change that leaves a list as it was keeps the old one, which is safe to
 * share since records never change in place (docs/benchmarks.md, "Shared
 * parts").
 *
 * @example
 * sameInOrder(['check.created'], ['check.created']) // true
 */
export const sameInOrder = <T>(a: readonly T[], b: readonly T[]): boolean =>
  a.length === b.length && a.every((item, i) => item === b[i])
