// A process that takes a data dir's lock when told to, as a `serve` would: it stops between the look at the
// dir and the creation of its lock (lockSeam) until told to go on, so the test decides which of two creates first.
import {lockDataDir, lockSeam} from '../../dist/store/lock.js'

let release
let goOn

lockSeam.beforeCreate = (path) =>
  new Promise((resolve) => {
    goOn = resolve
    process.send({type: 'seam', path})
  })

process.on('message', async (message) => {
  if (message.type === 'lock') {
    try {
      release = await lockDataDir(message.dir)
      process.send({type: 'answer', ok: true})
    } catch (error) {
      process.send({type: 'answer', ok: false, message: error.message})
    }
  } else if (message.type === 'go') {
    goOn()
  } else if (message.type === 'release') {
    await release?.()
    release = undefined
    process.send({type: 'released'})
  }
})
process.send({type: 'ready'})
