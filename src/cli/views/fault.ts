import type {Fault} from '../../client/client.js'
import {renderTable} from './table.js'
import {printable} from './printable.js'

/** What a fault does, in a few words: `503 (Retry-After 1s) after 12000 ms, after the change`. */
export function describeFault(fault: Fault): string {
  const parts: string[] = []
  if (fault.reset) parts.push('reset the connection')
  if (fault.status !== null)
    parts.push(`${fault.status}${fault.retry_after_s === null ? '' : ` (Retry-After ${fault.retry_after_s}s)`}`)
  if (fault.delay_ms > 0) parts.push(`${parts.length > 0 ? 'after ' : 'hold '}${fault.delay_ms} ms`)
  if (fault.after) parts.push('once the change is made (lost answer)')
  return parts.join(', ')
}

const matchOf = (fault: Fault) => `${fault.match.method ?? 'any'} ${fault.match.path ?? '/v1/** (every API route)'}`
const timesOf = (fault: Fault) =>
  `${fault.remaining === null ? 'always' : `${fault.remaining} left`}${fault.probability < 1 ? `, p=${fault.probability}` : ''}`

/** `faults list`: one row per fault, oldest (the one that wins) last, as the API lists them. */
export function renderFaultList(faults: Fault[]): string {
  return renderTable(faults, [
    {header: 'ID', value: (f) => f.id},
    {header: 'MATCH', value: matchOf},
    {header: 'TIMES', value: timesOf},
    {header: 'DOES', value: describeFault},
  ])
}

/** `faults add`: the fault and what it will do. */
export const renderFaultAdded = (fault: Fault): string =>
  printable(`Added ${fault.id}: ${matchOf(fault)} → ${describeFault(fault)} (${timesOf(fault)}).`)
