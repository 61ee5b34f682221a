import {BaseSequencer, type TestSpecification} from 'vitest/node'
import {mulberry32} from './random.js'

/**
 * Vitest's order (each project's files together, the longest first), and
 * under `--sequence.shuffle` each project's files in a random order, the
 * projects still one after the other. Vitest's own shuffle mixes the
 * projects' files, and a worker runs only one project's files
 * (`isolate: false`): each switch between the memory and the PostgreSQL
 * project started a new worker, which imported src/ again, ~25 s of a
 * shuffled run.
 */
export class ProjectSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const {shuffle, seed} = this.ctx.config.sequence
    if (!shuffle) return sorted
    const random = mulberry32(seed)
    const projects = new Map<string, TestSpecification[]>()
    for (const file of sorted) projects.set(file.project.name, [...(projects.get(file.project.name) ?? []), file])
    return [...projects.values()].flatMap((group) => {
      for (let i = group.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1))
        ;[group[i], group[j]] = [group[j]!, group[i]!]
      }
      return group
    })
  }
}
