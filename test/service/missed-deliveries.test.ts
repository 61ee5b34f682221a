import {describe, expect, it} from 'vitest'
import type {DeliveryRecord} from '../../src/domain/records.js'
import {MissedDeliveries} from '../../src/service/missed-deliveries.js'

const delivery = (id: string) => ({id, status: 'pending'}) as DeliveryRecord

/** A read the test answers: `answer` settles the oldest read still out. */
function reads() {
  const out: {resolve: (found: DeliveryRecord[]) => void; reject: (error: Error) => void}[] = []
  let started!: () => void
  let next = new Promise<void>((resolve) => (started = resolve))
  const read = () =>
    new Promise<DeliveryRecord[]>((resolve, reject) => {
      out.push({resolve, reject})
      started()
      next = new Promise<void>((resolve) => (started = resolve))
    })
  return {
    read,
    started: () => next,
    answer: (found: DeliveryRecord[]) => out.shift()!.resolve(found),
    fail: () => out.shift()!.reject(new Error('down')),
  }
}

describe('MissedDeliveries', () => {
  it('hands over what a read found, but the deliveries a commit told of while it read', async () => {
    const {read, answer} = reads()
    const handed: string[][] = []
    const missed = new MissedDeliveries(read, (pending) => handed.push(pending.map((d) => d.id)))
    const caught = missed.catchUp()
    missed.told([
      ['deliveries', 'dlv_told', delivery('dlv_told')],
      ['events', 'dlv_other', null],
    ])
    answer([delivery('dlv_missed'), delivery('dlv_told'), delivery('dlv_other')])
    await caught
    expect(handed).toEqual([['dlv_missed', 'dlv_other']])
    // told once no read is out, it holds back nothing of the next
    missed.told([['deliveries', 'dlv_missed', null]])
    const again = missed.catchUp()
    answer([delivery('dlv_missed')])
    await again
    expect(handed.at(-1)).toEqual(['dlv_missed'])
  })

  it('reads once more after a catch-up asked while it read, and again after a read that failed', async () => {
    const {read, started, answer, fail} = reads()
    const handed: string[][] = []
    const missed = new MissedDeliveries(read, (pending) => handed.push(pending.map((d) => d.id)))
    const first = missed.catchUp()
    const asked = missed.catchUp()
    await asked
    fail()
    await started()
    answer([delivery('dlv_1')])
    await started()
    answer([delivery('dlv_1'), delivery('dlv_2')])
    await first
    expect(handed).toEqual([['dlv_1'], ['dlv_1', 'dlv_2']])
  })

  it('stops: a read out then hands nothing over, and one that failed is not made again', async () => {
    const out = reads()
    const handed: string[][] = []
    const missed = new MissedDeliveries(out.read, (pending) => handed.push(pending.map((d) => d.id)))
    const caught = missed.catchUp()
    missed.stop()
    out.answer([delivery('dlv_1')])
    await caught
    const failing = reads()
    const stopped = new MissedDeliveries(failing.read, (pending) => handed.push(pending.map((d) => d.id)))
    const retried = stopped.catchUp()
    failing.fail()
    await failing.started()
    stopped.stop()
    failing.fail()
    // settles now, not after the two minutes a catch-up reads while the storage heals
    await retried
    expect(handed).toEqual([])
  })
})
