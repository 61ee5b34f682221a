import {createServer} from 'node:net'

/**
 * A port free now: bound, then released. For what needs a fixed port number
 * (a restart on the same port, a tool that takes no 0) or a port nothing
 * listens on.
 */
export async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const {port} = probe.address() as {port: number}
  await new Promise((resolve) => probe.close(resolve))
  return port
}
