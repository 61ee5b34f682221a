/** A port free now: bound, then released (scripts/free-port.js). */
export function freePort(): Promise<number>
