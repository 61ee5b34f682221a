import {type Command, Flags, type Interfaces} from '@oclif/core'
import {TablepayClient} from '../client/client.js'
import {resolveClientConfig} from '../client/config.js'
import {TablepayCommand} from './tablepay-command.js'

export type CommandFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type CommandArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/**
 * Base of every command that talks to a server: the connection flags, the
 * parsed `this.flags`/`this.args`, and a client created on first use (so
 * `--help` and flag errors never need a key).
 */
export abstract class BaseCommand<T extends typeof Command> extends TablepayCommand {
  static override baseFlags = {
    url: Flags.string({
      summary: 'Server URL. Default: TABLEPAY_URL, then the server started in this directory, then http://127.0.0.1:4747.',
      helpGroup: 'CONNECTION',
    }),
    'api-key': Flags.string({
      char: 'k',
      summary: 'API key. Default: TABLEPAY_API_KEY, then the write key of the server started in this directory.',
      helpGroup: 'CONNECTION',
    }),
  }

  protected flags!: CommandFlags<T>
  protected args!: CommandArgs<T>
  #client?: TablepayClient

  public override async init(): Promise<void> {
    await super.init()
    const {args, flags} = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    this.flags = flags as CommandFlags<T>
    this.args = args as CommandArgs<T>
  }

  protected get client(): TablepayClient {
    this.#client ??= new TablepayClient(resolveClientConfig({url: this.flags.url, apiKey: this.flags['api-key']}))
    return this.#client
  }
}
