/** `text` single-quoted for a POSIX shell, which reads it back as `text` (a `'` in it closed, escaped, opened again). */
export const singleQuoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`

/**
 * `text` as one word a POSIX shell reads back as `text`: as it is when it holds only characters no shell treats
 * specially, else single-quoted. For commands printed to be run.
 *
 * @example
 * shellWord('/tmp/my data') // "'/tmp/my data'"
 */
export const shellWord = (text: string): string => (/^[\w./:@+=,-]+$/.test(text) ? text : singleQuoted(text))
