import {describe, expect, it} from 'vitest'
import {printable, printableLines} from '../../src/cli/views/printable.js'
import {displayWidth} from '../../src/cli/views/display-width.js'
import {renderTable} from '../../src/cli/views/table.js'

const every = (from: number, to: number) =>
  Array.from({length: to - from + 1}, (_, i) => String.fromCharCode(from + i)).join('')

describe('printable', () => {
  it('escapes every C0 character, DEL and every C1 character as \\u00xx, and nothing else', () => {
    const shown = printable(`${every(0x00, 0x1f)}${every(0x7f, 0x9f)}`)
    expect(shown).toBe(
      [...every(0x00, 0x1f), ...every(0x7f, 0x9f)]
        .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
        .join(''),
    )
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
    const plain = `${every(0x20, 0x7e)}${every(0xa0, 0xff)} → … café 🍕 テーブル`
    expect(printable(plain)).toBe(plain)
  })

  it('escapes the bidirectional controls, which would reorder what a line shows', () => {
    const bidi = ['\u061c', '\u200e', '\u200f', ...every(0x202a, 0x202e), ...every(0x2066, 0x2069)]
    for (const char of bidi)
      expect(printable(`/v1/checks/external/ab${char}cd`)).toBe(
        `/v1/checks/external/ab\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}cd`,
      )
  })

  it('keeps the line breaks of text the program broke itself, and escapes any other control', () => {
    expect(printableLines('{\n  "name": "a\u009b2J\u001b]0;t\u0007"\n}')).toBe(
      '{\n  "name": "a\\u009b2J\\u001b]0;t\\u0007"\n}',
    )
  })

  it('makes a table cell printable before it is measured, so the columns stay aligned', () => {
    const table = renderTable(
      [{name: 'a\u001b[2J'}, {name: 'bb'}],
      [
        {header: 'NAME', value: (r) => r.name},
        {header: 'X', value: () => 'x'},
      ],
    )
    expect(table.split('\n')).toEqual(['NAME        X', 'a\\u001b[2J  x', 'bb          x'])
  })

  it('pads a cell by the cells a terminal draws it in: wide scripts and emoji take two, combining accents none', () => {
    const names = ['寿司🍣 sushi', 'Cafe\u0301 au lait', 'Sparkling water', 'ﾃｰﾌﾞﾙ']
    const lines = renderTable(names, [
      {header: 'NAME', value: (name) => name},
      {header: 'QTY', value: () => '1', align: 'right'},
    ]).split('\n')
    // where QTY's column ends, in cells, is where each line ends
    expect(lines.map(displayWidth)).toEqual(lines.map(() => displayWidth('Sparkling water  QTY')))
    expect([displayWidth('寿司🍣'), displayWidth('Cafe\u0301'), displayWidth('ﾃｰﾌﾞﾙ')]).toEqual([6, 4, 5])
  })
})
