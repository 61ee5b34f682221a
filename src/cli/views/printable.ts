// C0 (ESC, BEL, CR and LF among them), DEL and C1 (U+009B is a CSI on its own): what a terminal acts on
// instead of showing; and the bidirectional marks, embeddings, overrides and isolates, which reorder what
// follows them on the line (U+202E shows `abc` as `cba`)
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

const escaped = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`

/**
 * `text` as a terminal can show it and do nothing else: every control
 * character written as its `\u001b`-style escape. Anything that came from a
 * request or a record (a path, an item's name, a receiver's answer) goes
 * through it before a view prints it, so that no client can move the
 * cursor, clear the screen, set the title or forge a line of its own
 * (docs/api.md, "The request log").
 *
 * @example
 * printable('t12\u001b[2J') // 't12\\u001b[2J'
 */
export const printable = (text: string): string => text.replace(CONTROL, escaped)

/**
 * `text` of several lines that the program broke itself (indented JSON,
 * whose strings already escape their own line breaks), each line made
 * printable: the line breaks stay, any other control character is escaped.
 *
 * @example
 * printableLines(JSON.stringify({name: 'a\u009b2J'}, null, 2)) // '{\n  "name": "a\\u009b2J"\n}'
 */
export const printableLines = (text: string): string => text.split('\n').map(printable).join('\n')
