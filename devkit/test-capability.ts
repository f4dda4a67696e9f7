// A synthetic capability for kernel tests and benches, checked as a capability folder's manifest is.
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import { defineCapability, type CapabilityManifest } from '../core/capability.ts'
import { checkManifest, type Capability } from '../core/run/registry.ts'
import { randomInstance, seededRng } from './schema-instance.ts'

/**
 * A synthetic capability for kernel tests: `echo`-like, with the handler the test gives. Without an `example`, one
 * is drawn from its schemas (seeded by the name), as every capability must have one.
 */
export function testCapability(over: Partial<CapabilityManifest<TObject, TSchema>> & { name: string }): Capability {
  const request = over.request ?? Type.Object({ text: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false })
  const response = over.response ?? Type.Object({ echo: Type.String({ maxLength: 1000 }) }, { additionalProperties: false })
  const rng = seededRng(over.name)
  const m = defineCapability({
    summary: 'test capability',
    price: 5,
    async: false,
    ratePerMinute: 60,
    model: 'text',
    request,
    response,
    handler: async (input: any) => ({ echo: input.text }),
    example: { request: randomInstance(request, rng) as never, response: randomInstance(response, rng) as never },
    ...over,
  })
  return checkManifest(m, over.name, `test:${over.name}`)
}
