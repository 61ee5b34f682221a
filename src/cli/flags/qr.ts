import {Flags} from '@oclif/core'

/** `--qr` of the commands that show a check. */
export const qrFlag = Flags.boolean({summary: "Also print the QR code of the table page (the check's guest_url)."})
