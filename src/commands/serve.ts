import {Command} from '../cli/command.js'
import {UNTIL_STOPPED_EXIT_CODES} from '../cli/exit-codes.js'
import {checkStoreFlags, serveFlags} from '../cli/flags/serve.js'
import {outputFor} from '../cli/output.js'
import {serve} from '../serve/run.js'

export default class Serve extends Command {
  static override summary = 'Run the Tablepay API simulator.'

  static override description = `Serves the API at http://HOST:PORT/v1 and keeps its data in --data (or in memory with --memory). \
On first start it creates an account with locations and API keys, and prints them; --seed loads fixed ones instead, so CI knows its keys in advance.

It is ready when it prints its URL; with --json it prints one JSON line {"status": "ready", "url", "dashboard_url", "data_dir", "database", "accounts"}, then nothing but, with --log (the default at a terminal), a JSON line per request; or one JSON line {"error"} when it cannot start. \
With --database (or TABLEPAY_DATABASE_URL) the records live in PostgreSQL instead, shared by every instance started on the same URL (README: A sandbox for the whole team). \
Clients find the URL and a write key on their own: in the same directory, and through the per-user registry of running servers from any other (README: How the CLI finds the server). Ctrl+C (SIGINT), SIGTERM or SIGHUP (its terminal closed) stops it cleanly.`

  // its ready line, and its access lines with --log, are JSON lines: so is an error that ends its start
  static override keepsPrinting = true

  static override exitCodes = {
    ...UNTIL_STOPPED_EXIT_CODES,
    1: 'It could not start (server_start_failed): the port is in use, the data dir is damaged or held by another server, the database cannot be reached…: the message says why.',
    2: 'A wrong command line, a --data that cannot be made or used, or a --seed that is not a seed: nothing was done.',
  }

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {
      description: 'Throwaway server on a free port, with known keys, for CI',
      command: '<%= config.bin %> <%= command.id %> --port 0 --memory --seed fixtures/seed.json --json',
    },
    {
      description: 'Keep data somewhere else, surviving power loss too',
      command: '<%= config.bin %> <%= command.id %> --data /tmp/tablepay --fsync',
    },
    {
      description: 'Print one line per request, and refuse more than 5 requests a second per account',
      command: '<%= config.bin %> <%= command.id %> --log --rate-limit 5',
    },
    {
      description: 'Start in memory with an exported snapshot restored (`tablepay snapshots export`)',
      command: '<%= config.bin %> <%= command.id %> --memory --seed fixtures/seed.json --import lunch-rush.json',
    },
    {
      description: 'Demo the retry schedule in seconds instead of hours',
      command: '<%= config.bin %> <%= command.id %> --retry-schedule 2s,5s,10s --disable-after 3',
    },
  ]

  static override flags = serveFlags

  public async run(): Promise<void> {
    const {flags, raw} = await this.parse(Serve)
    await checkStoreFlags(flags, raw)
    await serve(flags, outputFor(this.jsonEnabled()))
  }
}
