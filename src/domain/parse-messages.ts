import type * as z from 'zod'

/**
 * The options every parse of what a user sends is given, for messages in its words: a field left out is
 * "Required: expected object", where zod says "Invalid input: expected object, received undefined". Given
 * to each parse rather than set on zod itself, which a project that imports tablepay may share.
 *
 * @example
 * const result = Seed.safeParse(value, READABLE)
 */
export const READABLE: z.core.ParseContext<z.core.$ZodIssue> = {
  error: (issue) =>
    issue.code === 'invalid_type' && issue.input === undefined ? `Required: expected ${issue.expected}` : undefined,
}
