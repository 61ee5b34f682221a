type Answer = Record<string, unknown>

/**
 * Success answers that several operations give alike (the same status,
 * headers and body schema: every HEAD answer of an API route, a GET and a
 * write that both answer a `Check`), described once under
 * `#/components/responses` and referred to: the headers each one lists
 * made most of the document's size (docs/api.md, "The OpenAPI document").
 *
 * @example
 * const answers = new SharedAnswers()
 * responses['200'] = answers.use({description: 'OK', headers}, 'HeadersAnswer')
 * components.responses = {...errors, ...answers.components()}
 */
export class SharedAnswers {
  readonly #byText = new Map<string, {name: string; answer: Answer; uses: Answer[]}>()

  /** A stand-in for `answer`, named `name` (or `name2`… beside another answer of that name) if shared: `components()` fills it in. */
  use(answer: Answer, name: string): Answer {
    const text = JSON.stringify(answer)
    let shared = this.#byText.get(text)
    if (!shared) this.#byText.set(text, (shared = {name, answer, uses: []}))
    const use: Answer = {}
    shared.uses.push(use)
    return use
  }

  /** Fills every stand-in, a `$ref` when two operations or more give that answer, and returns those answers by name. */
  components(): Record<string, Answer> {
    const components: Record<string, Answer> = {}
    for (const {name, answer, uses} of this.#byText.values()) {
      if (uses.length === 1) {
        Object.assign(uses[0]!, answer)
        continue
      }
      let unique = name
      for (let n = 2; unique in components; n++) unique = `${name}${n}`
      components[unique] = answer
      for (const use of uses) Object.assign(use, {$ref: `#/components/responses/${unique}`})
    }
    return components
  }
}
