// What the browser tests read inside page.evaluate(), which runs in Chromium, not Node.
// Declared here, not with the DOM lib: its fetch and stream types clash with Node's, which src/ uses.
declare const document: {
  documentElement: {scrollWidth: number; clientWidth: number}
  activeElement: {getAttribute(name: string): string | null} | null
}
declare const window: Record<string, unknown>
interface HTMLImageElement {
  decode(): Promise<void>
  naturalWidth: number
}
