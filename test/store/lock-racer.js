// A process that takes a data dir's lock when told to, at a given instant:
// two of these race for one dir as two `serve` started together would.
import {lockDataDir} from '../../dist/store/lock.js'

const now = () => performance.timeOrigin + performance.now()
let release

process.on('message', async (message) => {
  if (message.type === 'lock') {
    // spin rather than sleep: both racers must leave the mark within microseconds of each other
    while (now() < message.at);
    try {
      release = await lockDataDir(message.dir)
      process.send({ok: true})
    } catch (error) {
      process.send({ok: false, message: error.message})
    }
  } else if (message.type === 'release') {
    await release?.()
    release = undefined
    process.send({ok: true})
  }
})
process.send({ready: true})
