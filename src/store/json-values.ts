/** A JSON object's fields, as the journal's short forms read and write them. */
export type Fields = Record<string, unknown>

/** Whether `value` is a JSON object (not an array, not null). */
export const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A value JSON writes the same in an object and in an array (`undefined` is dropped from one, `null` in the other). */
export const portable = (value: unknown): boolean =>
  value !== undefined && typeof value !== 'function' && typeof value !== 'symbol'
