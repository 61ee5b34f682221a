import {Flags} from '@oclif/core'

/** `--secret` and `--payload`, the same in `verify` and `sign`. */
export const webhookFlags = {
  secret: Flags.string({
    char: 's',
    env: 'TABLEPAY_WEBHOOK_SECRET',
    helpValue: 'whsec_…',
    summary: "The endpoint's signing secret. Prefer the environment variable: arguments show in the process list.",
  }),
  payload: Flags.string({
    char: 'p',
    helpValue: 'FILE',
    summary: 'File with the body, byte for byte; - or no flag reads stdin.',
  }),
}
