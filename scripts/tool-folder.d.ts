/** A folder's node_modules, installed first when missing or stale (scripts/tool-folder.js). */
export function toolFolder(dir: string, say?: (text: string) => void): Promise<string>
