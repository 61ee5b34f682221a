import type {Event} from '../../client/client.js'
import {formatDateTime} from './format.js'
import {style} from './style.js'
import {type Column, renderTable} from './table.js'

const COLUMNS: Column<Event>[] = [
  {header: 'ID', value: (e) => e.id},
  {header: 'TYPE', value: (e) => e.type},
  {header: 'CREATED', value: (e) => formatDateTime(e.created_at)},
  {header: 'OBJECT', value: (e) => String(e.data.id ?? '')},
]

export function renderEventList(events: readonly Event[]): string {
  return renderTable(events, COLUMNS)
}

/** The envelope's head, then its data as indented JSON (what a receiver gets). */
export function renderEventDetail(event: Event): string {
  return `${style.bold(event.type)}  ${event.id}  ${formatDateTime(event.created_at)}\n${JSON.stringify(event.data, null, 2)}`
}
