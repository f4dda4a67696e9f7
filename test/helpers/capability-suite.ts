// The tests every capability's file shares, run from one place, so that a capability's test file holds only what
// is particular to it: its own bad bodies are passed in, the cases every capability refuses alike are added here,
// and a capability where a shared case does not hold leaves it out by name (`skip`).
import type { Test } from 'tap'
import type { CapabilityHarness } from './capability.ts'

/** The cases every capability refuses alike, by name. */
export type SharedCase = 'not an object' | 'unknown property'

export interface SuiteOptions {
  /** This capability's bad bodies, each `[why, body]`: 400 invalid_request before any model call, nothing charged. */
  badInput?: Array<[string, unknown]>
  /** The same, each named by its JSON. */
  badBodies?: unknown[]
  /** Shared cases this capability leaves out. */
  skip?: SharedCase[]
}

/** Registers the shared tests on `t`: bad input (this capability's and the shared cases) is 400 with details, and free. */
export function capabilitySuite(
  t: Pick<Test, 'test'>,
  cap: CapabilityHarness,
  { badInput = [], badBodies = [], skip = [] }: SuiteOptions,
): void {
  const shared: Array<[SharedCase, unknown]> = [
    ['not an object', [cap.example]],
    ['unknown property', { ...cap.example, unknownProperty: true }],
  ]
  const named = badBodies.map((body): [string, unknown] => [JSON.stringify(body).slice(0, 80), body])
  const cases = [...shared.filter(([name]) => !skip.includes(name)), ...badInput, ...named]
  t.test('bad input is 400 invalid_request and free', async (t) => {
    cap.forbidModel(t)
    for (const [why, body] of cases) {
      const { res } = await cap.expectRefused(t, body, { why })
      t.ok(Array.isArray(res.body?.error?.details) && res.body.error.details.length > 0, `${why}: the details say what is wrong`)
    }
  })
}
