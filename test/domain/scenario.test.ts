import {describe, expect, test} from 'vitest'
import {subsetDifferences} from '../../src/domain/json-subset.js'
import {checkScenario} from '../../src/domain/scenario.js'
import {fieldOf, resolveReferences, UnresolvedReferenceError} from '../../src/domain/scenario-references.js'

const values: Record<string, unknown> = {run: 'k3x9', open: {id: 'chk_1', total: 1200, items: [{id: 'l1'}]}}
const lookup = ({name, field}: {name: string; field: string[]}) =>
  field.reduce<unknown>((here, key) => (here as Record<string, unknown> | undefined)?.[key], values[name])

describe('references', () => {
  test('a whole-string reference keeps its type; inside a string it is written as text', () => {
    expect(
      resolveReferences({amount: '${open.total}', id: 't7-${run}', line: '${open.items.0.id}', n: 3}, lookup),
    ).toEqual({amount: 1200, id: 't7-k3x9', line: 'l1', n: 3})
    expect(resolveReferences(['${open.total} cents'], lookup)).toEqual(['1200 cents'])
  })

  test('a value with $ is put in as it is', () => {
    expect(resolveReferences('a ${x} b', () => '$& $1')).toBe('a $& $1 b')
  })

  test('a value that holds a reference itself is text: only what the file wrote is filled in', () => {
    const named = (ref: {name: string}) => (ref.name === 'pre' ? 'A ${run} B' : values[ref.name])
    expect(resolveReferences('${pre}|${run}', named)).toBe('A ${run} B|k3x9')
  })

  test("a field is one of the answer's own: an object's built-in properties are none", () => {
    expect(fieldOf({id: 'chk_1', items: [{id: 'l1'}]}, ['items', '0', 'id'])).toBe('l1')
    for (const field of [['constructor'], ['toString'], ['items', 'map'], ['__proto__']])
      expect(fieldOf({id: 'chk_1', items: []}, field)).toBeUndefined()
  })

  test('a field the answer lacks is an error naming the reference', () => {
    expect(() => resolveReferences('${open.nope}', lookup)).toThrow(UnresolvedReferenceError)
    expect(() => resolveReferences('${open.nope}', lookup)).toThrow('${open.nope} has no value in this run')
  })
})

describe('JSON subsets', () => {
  test('an object holds when each of its keys holds; extra keys in the answer do not matter', () => {
    expect(subsetDifferences({a: 1, b: {c: 'x'}}, {a: 1, b: {c: 'x', d: 2}, e: 3})).toEqual([])
    expect(subsetDifferences({a: 1, b: {c: 'x'}}, {a: 2, b: {}})).toEqual([
      {path: '.a', expected: 1, got: 2},
      {path: '.b.c', expected: 'x'},
    ])
  })

  test('a key the answer does not hold is missing, whatever an object inherits (constructor, toString)', () => {
    expect(subsetDifferences({constructor: 5, toString: 'x'}, {a: 1})).toEqual([
      {path: '.constructor', expected: 5},
      {path: '.toString', expected: 'x'},
    ])
  })

  test('-0 in a file holds against 0 in an answer, as JSON writes both', () => {
    expect(subsetDifferences({amount_paid_cents: JSON.parse('-0')}, {amount_paid_cents: 0})).toEqual([])
  })

  test('an array holds when each element holds in its own element, in order', () => {
    const got = [{n: 1}, {n: 2}, {n: 2}, {n: 3}]
    expect(subsetDifferences([{n: 1}, {n: 3}], got)).toEqual([])
    expect(subsetDifferences([{n: 2}, {n: 2}], got)).toEqual([])
    expect(subsetDifferences([{n: 2}, {n: 2}, {n: 2}], got)).toEqual([{path: '[2]', expected: {n: 2}, got: {n: 2}}])
    expect(subsetDifferences([{n: 3}, {n: 1}], got)).toEqual([{path: '[1]', expected: {n: 1}, got: {n: 2}}])
  })

  test('other values are equal or differ, types included', () => {
    expect(subsetDifferences({a: '1'}, {a: 1})).toEqual([{path: '.a', expected: '1', got: 1}])
    expect(subsetDifferences({a: null}, {a: null})).toEqual([])
  })
})

const scenario = (steps: unknown[]) => ({tablepay_scenario: 1, name: 'x', steps})

describe('checkScenario', () => {
  test('a valid scenario keeps each step with its kind, id and status', () => {
    const checked = checkScenario(
      scenario([
        {id: 'open', push: {external_id: 't-${run}'}, status: 201},
        {advance: '2h'},
        {expect: {get: '/checks/${open.id}', json: {status: 'open'}}},
      ]),
    )
    expect(checked).toEqual({
      valid: true,
      scenario: {
        name: 'x',
        steps: [
          {kind: 'push', id: 'open', status: 201, input: {external_id: 't-${run}'}},
          {kind: 'advance', input: '2h'},
          {kind: 'expect', input: {get: '/checks/${open.id}', json: {status: 'open'}}},
        ],
      },
    })
  })

  test("a bad name and a bad step are both named: the steps are checked whatever the file's other fields", () => {
    const checked = checkScenario({...scenario([{push: {}, nope: 1}]), name: 'Bad Name'})
    expect(checked.valid).toBe(false)
    const paths = (checked as {problems: {path: string}[]}).problems.map((p) => p.path)
    expect(paths[0]).toBe('.name')
    expect(paths.slice(1)).toContainEqual(expect.stringMatching(/^\.steps\[0\]/))
  })

  test('names each problem by step, id and jq path', () => {
    const checked = checkScenario(
      scenario([
        {id: 'a', push: {external_id: 'x'}, pay: {check: 'y'}},
        {id: 'a', claim: {check: '${a.id', items: []}},
        {expect: {get: 'checks'}, status: 200},
        {request: {method: 'GET', path: '/x', bogus: 1}},
        {restore: '${b.name}'},
        {id: 'b', snapshot: 'before'},
        {fault: {status: 503}, status: 'lost'},
      ]),
    )
    expect(checked.valid).toBe(false)
    const problems = (checked as {problems: {step: number; path: string; message: string}[]}).problems
    expect(problems.map(({step, path}) => `${step} ${path}`)).toEqual([
      '1 .steps[0]',
      '2 .steps[1].id',
      '2 .steps[1].claim.check',
      '3 .steps[2].status',
      '3 .steps[2].expect.get',
      '4 .steps[3].request',
      '5 .steps[4].restore',
      '7 .steps[6].status',
    ])
    expect(problems[0]!.message).toBe('a step has exactly one kind, not 2')
    expect(problems[1]!.message).toBe('step 1 has the id "a" already')
    expect(problems[2]!.message).toBe(
      '${a.id is not a reference: write ${run}, ${location}, ${receiver} or ${step.field}',
    )
    expect(problems[6]!.message).toContain('(step 6), which has not run yet here')
  })

  test('a step nested deeper than 64 levels is a problem naming where, however deep it goes', () => {
    let body: unknown = 'x'
    for (let i = 0; i < 5000; i++) body = {a: body}
    const checked = checkScenario(scenario([{request: {method: 'POST', path: '/x', body}}]))
    expect(checked.valid).toBe(false)
    const [problem] = (checked as {problems: {step: number; path: string; message: string}[]}).problems
    expect(problem!.path).toBe(`.steps[0].request.body${'.a'.repeat(63)}`)
    expect(problem!.message).toBe('nests deeper than 64 levels, which no body or answer of the API does')
  })

  test('a __proto__ field, which JSON keeps and validation would drop, is a problem naming where', () => {
    const steps = JSON.parse(
      '[{"expect": {"get": "/x", "json": {"__proto__": {"status": "paid"}}}},' +
        '{"push": {"external_id": "t1", "items": [{"__proto__": 1}]}}]',
    )
    const checked = checkScenario(scenario(steps))
    expect(checked.valid).toBe(false)
    const problems = (checked as {problems: {path: string; message: string}[]}).problems
    expect(problems.map(({path}) => path)).toEqual([
      '.steps[0].expect.json.__proto__',
      '.steps[1].push.items[0].__proto__',
    ])
    expect(problems[0]!.message).toBe('is no field of the API: a step can neither send nor expect "__proto__"')
  })

  test('a header is a name fetch can send with a value it can send', () => {
    const checked = checkScenario(
      scenario([
        {request: {method: 'GET', path: '/x', headers: {'x-ok': 'caf\u00e9 ${run}', 'x-bad': 'a\r\nb', 'a b': 'v'}}},
      ]),
    )
    expect(checked.valid).toBe(false)
    const problems = (checked as {problems: {path: string; message: string}[]}).problems
    expect(problems.map(({path}) => path)).toEqual(['.steps[0].request.headers.x-bad', '.steps[0].request.headers.a b'])
    expect(problems[0]!.message).toContain('must be a header value')
    expect(problems[1]!.message).toContain('must be a header name')
  })

  test('a header fetch sets itself or refuses to send is a problem, in any case', () => {
    const own = ['Transfer-Encoding', 'expect', 'UPGRADE', 'Keep-Alive', 'Connection', 'Content-Length']
    const headers = Object.fromEntries([...own.map((name) => [name, 'x']), ['x-fine', 'y']])
    const checked = checkScenario(scenario([{request: {method: 'POST', path: '/x', body: {}, headers}}]))
    const problems = (checked as {problems: {path: string; message: string}[]}).problems
    expect(problems.map(({path}) => path)).toEqual(own.map((name) => `.steps[0].request.headers.${name}`))
    expect(problems[0]!.message).toContain("is fetch's own")
  })

  test('a path with a . or .. segment, as a URL parser reads one, is a problem: fetch would send it elsewhere', () => {
    const paths = ['/..', '/%2e%2e/', '/checks/.%2E/x', '/checks\\..\\x', '/checks/./x?q=1', '/.\t./', '/checks/.\n./x']
    const checked = checkScenario(
      scenario([
        ...paths.map((path) => ({request: {method: 'GET', path}})),
        {expect: {get: '/../openapi.json'}},
        {request: {method: 'GET', path: '/checks/a..b?q=../x'}},
      ]),
    )
    const problems = (checked as {problems: {path: string; message: string}[]}).problems
    expect(problems.map(({path}) => path)).toEqual([
      ...paths.map((_, i) => `.steps[${i}].request.path`),
      `.steps[${paths.length}].expect.get`,
    ])
    expect(problems[0]!.message).toBe('must stay under /v1: no . or .. segment, e.g. /checks/${open.id}')
  })

  test('a reference that cannot be read is named', () => {
    const checked = checkScenario(scenario([{push: {external_id: 'x-${run!}'}}]))
    expect(checked).toMatchObject({valid: false, problems: [{step: 1, path: '.steps[0].push.external_id'}]})
  })

  test('a built-in reference has no fields; text after it is no field', () => {
    const checked = checkScenario(
      scenario([
        {push: {external_id: 'x-${run.x}', location_id: '${location.id}'}},
        {webhook_endpoint: {url: '${receiver.foo}'}},
        {webhook_endpoint: {url: '${receiver}/503'}},
      ]),
    )
    expect(checked).toEqual({
      valid: false,
      problems: [
        {step: 1, path: '.steps[0].push.external_id', message: '${run.x}: ${run} has no fields, write it alone'},
        {
          step: 1,
          path: '.steps[0].push.location_id',
          message: '${location.id}: ${location} has no fields, write it alone',
        },
        {
          step: 2,
          path: '.steps[1].webhook_endpoint.url',
          message: '${receiver.foo}: ${receiver} has no fields, write it alone',
        },
      ],
    })
  })

  test('a snapshot or restore name is one the snapshot routes take, ${run} counted as its 8 characters and other references as letters', () => {
    const names = [
      'lunch-${run}',
      '${run}',
      'Lunch Rush',
      'x ${run}',
      '',
      'a'.repeat(65),
      `${'a'.repeat(56)}${'${run}'}`,
    ]
    names.push(`${'a'.repeat(57)}${'${run}'}`, `${'a'.repeat(63)}${'${location}'}`)
    const checked = checkScenario(scenario(names.map((name, i) => (i % 2 ? {restore: name} : {snapshot: name}))))
    const message =
      'must be 1-64 characters of a-z 0-9 _ -, starting with a letter or digit, and not import (the import route)'
    expect(checked).toEqual({
      valid: false,
      problems: [
        {step: 3, path: '.steps[2].snapshot', message},
        {step: 4, path: '.steps[3].restore', message},
        {step: 5, path: '.steps[4].snapshot', message},
        {step: 6, path: '.steps[5].restore', message},
        // 57 letters and the run's 8 make 65: certain to be refused at run time
        {step: 8, path: '.steps[7].restore', message},
      ],
    })
  })

  test('an advance is at most what the clock route advances at once (3650 days)', () => {
    const checked = checkScenario(scenario([{advance: '3650d'}, {advance: '3650d1s'}, {advance: 3650 * 86_400 + 1}]))
    const message = 'must be at most 3650d, the most POST /sim/clock/advance takes'
    expect(checked).toEqual({
      valid: false,
      problems: [
        {step: 2, path: '.steps[1].advance', message},
        {step: 3, path: '.steps[2].advance', message},
      ],
    })
  })

  test('a duration of 0, in any writing, is refused for its length: an advance and a wait must be longer', () => {
    const zero = ['0s', '0', '0ms', 0]
    const checked = checkScenario(
      scenario([
        ...zero.map((advance) => ({advance})),
        ...zero.map((within) => ({expect_event: {type: 'check.created', within}})),
        {advance: '5 parsecs'},
      ]),
    )
    const longer = 'must be longer than 0: a duration such as 500ms, 5s, 2h or 1h30m'
    expect(checked).toEqual({
      valid: false,
      problems: [
        ...zero.map((_, i) => ({step: i + 1, path: `.steps[${i}].advance`, message: longer})),
        ...zero.map((_, i) => ({step: i + 5, path: `.steps[${i + 4}].expect_event.within`, message: longer})),
        {step: 9, path: '.steps[8].advance', message: 'must be a duration such as 500ms, 5s, 2h or 1h30m'},
      ],
    })
  })

  test('an advance or a wait that is neither a number nor a string says what a duration is', () => {
    const notDurations = [true, null, [1], {}]
    const checked = checkScenario(
      scenario([
        ...notDurations.map((advance) => ({advance})),
        ...notDurations.map((within) => ({expect_event: {type: 'check.created', within}})),
      ]),
    )
    const message = 'must be a duration such as 500ms, 5s, 2h or 1h30m'
    expect(checked).toEqual({
      valid: false,
      problems: [
        ...notDurations.map((_, i) => ({step: i + 1, path: `.steps[${i}].advance`, message})),
        ...notDurations.map((_, i) => ({step: i + 5, path: `.steps[${i + 4}].expect_event.within`, message})),
      ],
    })
  })

  test('a name or a step id refused says what it may start with', () => {
    expect(checkScenario({tablepay_scenario: 1, name: '-lead', steps: [{id: '-a', advance: '1s'}]})).toEqual({
      valid: false,
      problems: [
        {path: '.name', message: 'must be 1-64 characters of a-z 0-9 and -, the first a letter or digit'},
        {
          step: 1,
          id: '-a',
          path: '.steps[0].id',
          message: 'must start with a letter or _ and hold letters, digits, _ and -',
        },
      ],
    })
  })

  test('the file itself: version, name and steps', () => {
    expect(checkScenario({tablepay_scenario: 2, name: 'Bad Name', steps: []})).toMatchObject({
      valid: false,
      problems: [{path: '.tablepay_scenario'}, {path: '.name'}, {path: '.steps'}],
    })
  })
})
