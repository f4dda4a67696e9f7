// The operation of one kernel route (core/openapi/kernel-routes.ts): its 200 body by name, the statuses it
// names, and 401, 429 and 503 when it takes an API key.
import type { KernelRoute } from './kernel-routes.ts'
import { REQUEST_ID, errorResponse, json, ref } from './responses.ts'

export function kernelOperation(route: KernelRoute) {
  // An authenticated route reads the database: 503 service_unavailable while it cannot be reached.
  const errors = [...new Set([...(route.authenticated ? [401, 429] : []), ...(route.errors ?? []), ...(route.authenticated ? [503] : [])])]
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: route.authenticated ? [{ bearer: [] }] : [],
    ...(route.parameters ? { parameters: route.parameters } : {}),
    ...(route.requestBody
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: ref(route.requestBody.name),
                ...(route.requestBody.example === undefined ? {} : { example: route.requestBody.example }),
              },
            },
          },
        }
      : {}),
    responses: {
      [String(route.status ?? 200)]: route.response.csv
        ? { description: route.response.description, headers: REQUEST_ID, content: { 'text/csv': { schema: { type: 'string' } } } }
        : json(ref(route.response.name), route.response.description, REQUEST_ID, route.response.example),
      ...Object.fromEntries(errors.map((s) => [String(s), errorResponse(s, false)])),
    },
  }
}
