// What the browser tests read inside page.evaluate(), which runs in Chromium, not Node.
// Declared here, not with the DOM lib: its fetch and stream types clash with Node's, which src/ uses.
interface PageBox {
  top: number
  left: number
  bottom: number
  right: number
  width: number
  height: number
}
interface PageElement {
  textContent: string | null
  getClientRects(): ArrayLike<PageBox>
  getBoundingClientRect(): PageBox
  querySelectorAll(selectors: string): Iterable<PageElement>
  parentElement: PageElement | null
  childNodes: ArrayLike<PageElement>
  nodeType: number
}
declare const document: {
  documentElement: {scrollWidth: number; clientWidth: number}
  activeElement: {getAttribute(name: string): string | null} | null
  querySelectorAll(selectors: string): Iterable<PageElement>
  createRange(): {
    selectNodeContents(node: PageElement): void
    setStart(node: PageElement, offset: number): void
    setEnd(node: PageElement, offset: number): void
    getClientRects(): Iterable<PageBox>
    getBoundingClientRect(): PageBox
  }
}
declare const window: Record<string, unknown> & {stop(): void}
interface HTMLImageElement {
  decode(): Promise<void>
  naturalWidth: number
}
