/** The ports `serve --port` takes: 0 picks a free one. The lean path (lean-entry.ts) checks the same range. */
export const PORT_RANGE = {min: 0, max: 65_535} as const
