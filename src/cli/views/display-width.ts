/**
 * What a terminal draws two cells wide: the East Asian wide and fullwidth ranges (Hangul, CJK, kana, fullwidth
 * forms) and emoji shown as emoji, as wcwidth has them.
 */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}\p{Emoji_Presentation}]/u
/** What it draws on the cell before, or not at all: combining marks (variation selectors too) and format characters (joiners). */
const NONE = /[\p{Mn}\p{Me}\p{Cf}]/u

/**
 * How many terminal cells `text` takes: what a table pads by, so that a column stays straight under names in
 * Japanese, with emoji or with accents written as combining marks. Control characters are escaped before
 * (printable.ts).
 *
 * @example
 * displayWidth('寿司🍣') // 6
 */
export function displayWidth(text: string): number {
  let width = 0
  for (const char of text) width += NONE.test(char) ? 0 : WIDE.test(char) ? 2 : 1
  return width
}

/** `text` padded with spaces to `width` cells, after it (or, `right`, before it). */
export function padTo(text: string, width: number, right = false): string {
  const room = ' '.repeat(Math.max(0, width - displayWidth(text)))
  return right ? room + text : text + room
}
