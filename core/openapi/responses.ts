// The response pieces every path of the document shares: references, the JSON body, the headers, and the
// error answer of a status (its codes from the one table in core/errors.ts).
import { ERROR_STATUS } from '../errors.ts'

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
export const header = (name: string) => ({ $ref: `#/components/headers/${name}` })
export const json = (schema: unknown, description: string, headers?: Record<string, unknown>, example?: unknown) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
})

export const REQUEST_ID = { 'X-Request-Id': header('X-Request-Id') }
export const RATE_LIMIT = {
  'RateLimit-Limit': header('RateLimit-Limit'),
  'RateLimit-Remaining': header('RateLimit-Remaining'),
  'RateLimit-Reset': header('RateLimit-Reset'),
}

/** Every status an error code answers with, each once. */
export const ERROR_STATUSES = [...new Set(Object.values(ERROR_STATUS))]

/** The Error answer of one status, described by its codes; `rateLimited`: the route sends RateLimit-* headers. */
export function errorResponse(status: number, rateLimited: boolean) {
  return json(ref('Error'), `${codesFor(status).join(', ')}`, {
    ...REQUEST_ID,
    ...(rateLimited && status !== 401 ? RATE_LIMIT : {}),
    // 502: a provider that timed out or was busy says when a retry may succeed.
    ...(status === 429 || status === 409 || status === 502 || status === 503 ? { 'Retry-After': header('Retry-After') } : {}),
  })
}

function codesFor(status: number): string[] {
  return Object.entries(ERROR_STATUS)
    .filter(([, s]) => s === status)
    .map(([c]) => c)
}
