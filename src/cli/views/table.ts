import {displayWidth, padTo} from './display-width.js'
import {printable} from './printable.js'
import {style} from './style.js'

export interface Column<T> {
  header: string
  value: (row: T) => string
  /** Amounts read best right-aligned. */
  align?: 'left' | 'right'
  /** Colour applied after padding, so escape codes never skew the widths. */
  color?: (text: string, row: T) => string
}

/**
 * Plain columns separated by two spaces, with a header row; no borders, so
 * the output stays greppable and copy-pastable. Every cell is printable
 * (a record's text cannot act on the terminal), and measured as shown: in
 * terminal cells (display-width.ts).
 *
 * @example
 * renderTable(locations, [{header: 'ID', value: (l) => l.id}, {header: 'NAME', value: (l) => l.name}])
 */
export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((row) => columns.map((column) => printable(column.value(row))))
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((line) => displayWidth(line[i]!))),
  )
  const pad = (text: string, i: number) => {
    if (i === columns.length - 1 && columns[i]!.align !== 'right') return text
    return padTo(text, widths[i]!, columns[i]!.align === 'right')
  }
  const header = columns.map((column, i) => style.bold(pad(column.header, i))).join('  ')
  const lines = cells.map((line, r) =>
    line
      .map((text, i) => columns[i]!.color?.(pad(text, i), rows[r]!) ?? pad(text, i))
      .join('  ')
      .trimEnd(),
  )
  return [header, ...lines].join('\n')
}
