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

/**
 * Why `text` is no JSON, as JSON.parse's `error` says; but a byte order mark first, which that message shows
 * as an invisible character, is named. The API and `checks lint` refuse it (docs/cli.md).
 *
 * @example
 * whyNotJson('\uFEFF{}', error) // 'it starts with a byte order mark (U+FEFF), …'
 */
export const whyNotJson = (text: string, error: Error): string =>
  text.startsWith('\uFEFF')
    ? 'it starts with a byte order mark (U+FEFF), which no JSON body may: save it as UTF-8 without one'
    : error.message
