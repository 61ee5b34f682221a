import type {SignatureFailureReason} from '../webhooks/signature.js'

/**
 * The codes of the failures the CLI reports itself (the server's codes are
 * in docs/api.md). They show as `Code: …` and as `error.code` with --json,
 * where scripts match on them: a code keeps its name once shipped.
 */
export const CLI_ERROR_CODES = [
  // a command line oclif could not read, or any other failure without a code (errors.ts)
  'invalid_usage',
  'cli_error',
  // reading input: a file, stdin, a scenario
  'missing_input',
  'unreadable_input',
  'invalid_json',
  'invalid_scenario',
  'validation_failed',
  'output_failed',
  // reports that say no: checks lint, checks replay, scenario run, receiver check
  'lint_failed',
  'replay_failed',
  'scenario_failed',
  // a run stopped by Ctrl+C, SIGTERM or SIGHUP
  'interrupted',
  'receiver_nonconformant',
  'receiver_unreachable',
  // sign --forward-to
  'missing_secret',
  'connection_failed',
  'receiver_rejected',
  'receiver_timeout',
  // commands that act on a server (the client's codes: no answer, none within --timeout)
  'server_timeout',
  'unexpected_answer',
  'nothing_due',
  'endpoint_not_removed',
  // listen: its endpoint disabled by deliveries dead in a row, or deleted by someone else
  'endpoint_disabled',
  'endpoint_deleted',
  'server_start_failed',
  // exec: a COMMAND that could not be started
  'command_not_started',
] as const

/** A code the CLI reports: one of the list, or why `verify` refused a signature (its reason is its code). */
export type CliErrorCode = (typeof CLI_ERROR_CODES)[number] | SignatureFailureReason
