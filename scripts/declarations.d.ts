/** The declaration files `entries` reach under `root`, and the packages they import (scripts/declarations.js). */
export function declarationsReached(root: string, entries: string[]): {files: string[]; packages: string[]}
