import {describe, expect, it} from 'vitest'
import type {FaultRecord} from '../../src/domain/faults.js'
import {Faults} from '../../src/service/faults.js'
import type {SharedFaults, SharedStorage, StoredFault} from '../../src/service/storage.js'

/** Every request a route takes: which paths are routes is the server's (test/server/faults.test.ts). */
const routed = () => true

const NOW = '2026-01-01T00:00:00.000Z'

/**
 * Instances on one database, as far as faults go: one table, the notes between them, and every query counted.
 * `hold` keeps the notes sent from then on until `release`, as a busy database may deliver them late.
 */
function database() {
  const rows: StoredFault[] = []
  const queries: string[] = []
  let seq = 0
  let held: (() => void)[] | undefined
  const listeners = new Map<Faults, Map<string, (note: unknown) => void>>()
  const table: SharedFaults = {
    all: async (accountId) => (queries.push('all'), rows.filter((r) => !accountId || r.fault.account_id === accountId)),
    add: async (fault: FaultRecord) => {
      queries.push('add')
      const stored = {fault: {...fault}, seq: ++seq}
      rows.push(stored)
      return stored
    },
    remove: async () => (queries.push('remove'), false),
    clear: async (accountId) => {
      queries.push('clear')
      const gone = rows.filter((r) => r.fault.account_id === accountId)
      for (const row of gone) rows.splice(rows.indexOf(row), 1)
      return {count: gone.length, through: Math.max(0, ...gone.map((r) => r.seq))}
    },
    draw: async () => (queries.push('draw'), undefined),
    strike: async (id) => {
      queries.push('strike')
      const row = rows.find((r) => r.fault.id === id && r.fault.remaining !== 0)
      if (!row) return undefined
      if (row.fault.remaining !== null) row.fault.remaining--
      return {remaining: row.fault.remaining}
    },
  }
  const instance = () => {
    let faults: Faults | undefined = undefined
    const shared: SharedStorage = {
      claim: async () => undefined,
      broadcast: (topic, note) => {
        const told = note()
        const deliver = () => {
          for (const [other, topics] of listeners) if (other !== faults) topics.get(topic)?.(told)
        }
        if (held) held.push(deliver)
        else deliver()
        return true
      },
      listen: (topic, listener) => {
        listeners.get(faults!)!.set(topic, listener)
        return () => {}
      },
      onReconnect: () => () => {},
      clockTurn: (change) => change(),
      faults: table,
    }
    faults = new Faults(shared)
    listeners.set(faults, new Map())
    return faults
  }
  const hold = () => (held = [])
  const release = () => {
    const late = held ?? []
    held = undefined
    for (const deliver of late) deliver()
  }
  return {instance, queries, hold, release}
}

describe('Faults on a shared database', () => {
  it('a request no fault of its account matches is answered from the copy, with no query', async () => {
    const db = database()
    const [a, b] = [db.instance(), db.instance()]
    await Promise.all([a.start(), b.start()])
    await a.add('acct_1', {status: 503, match: {path: '/v1/checks/**'}}, NOW)
    db.queries.length = 0
    expect(b.take('acct_2', 'GET', '/v1/checks/chk_1', routed)).toBeUndefined()
    expect(b.take('acct_1', 'GET', '/v1/locations', routed)).toBeUndefined()
    expect(db.queries).toEqual([])
    expect(await b.take('acct_1', 'GET', '/v1/checks/chk_1', routed)).toMatchObject({status: 503, remaining: 0})
    expect(db.queries).toEqual(['strike'])
    // used up: gone from both copies, so the next request asks nothing either
    expect(a.take('acct_1', 'GET', '/v1/checks/chk_1', routed)).toBeUndefined()
    expect(b.take('acct_1', 'GET', '/v1/checks/chk_1', routed)).toBeUndefined()
    expect(db.queries).toEqual(['strike'])
  })

  it('a clear heard late takes none of the faults added after it', async () => {
    const db = database()
    const [a, b] = [db.instance(), db.instance()]
    await Promise.all([a.start(), b.start()])
    await a.add('acct_1', {status: 503}, NOW)
    db.hold()
    // b's clear reaches a only after a has added another
    await b.clear('acct_1')
    await a.add('acct_1', {status: 502}, NOW)
    db.release()
    expect(await a.take('acct_1', 'GET', '/v1/locations', routed)).toMatchObject({status: 502})
  })

  it('without a shared database, take answers at once and faults stay in memory', async () => {
    const faults = new Faults()
    await faults.start()
    await faults.add('acct_1', {status: 500}, NOW)
    expect(faults.take('acct_1', 'GET', '/v1/locations', routed)).toMatchObject({status: 500, remaining: 0})
    expect(await faults.list('acct_1')).toEqual([])
  })
})
