// The operation of one kernel route (core/openapi/kernel-routes.ts): its 200 body by name, the statuses it
// names, and 401, 429 and 503 when it takes an API key. A GET with a `cursor` query parameter is a list:
// `x-pagination` names the array it pages through, so a client (the SDK's list methods) can follow nextCursor.
import type { KernelRoute } from './kernel-route.ts'
import { REQUEST_ID, errorResponse, json, ref } from './responses.ts'

export function kernelOperation(route: KernelRoute) {
  // An authenticated route reads the database: 503 service_unavailable while it cannot be reached.
  const errors = [...new Set([...(route.authenticated ? [401, 429] : []), ...(route.errors ?? []), ...(route.authenticated ? [503] : [])])]
  const paging = pagination(route)
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: route.authenticated ? [{ bearer: [] }] : [],
    ...(route.parameters ? { parameters: route.parameters } : {}),
    ...(paging ? { 'x-pagination': paging } : {}),
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
      ...(route.dryRun ? { '200': { ...json(ref(route.dryRun.name), route.dryRun.description, REQUEST_ID), 'x-dry-run': true } } : {}),
      [String(route.status ?? 200)]:
        route.status === 204
          ? { description: route.response.description, headers: REQUEST_ID }
          : route.response.csv
            ? {
                description: route.response.description,
                headers: REQUEST_ID,
                content: {
                  'text/csv': { schema: { type: 'string' } },
                  ...(route.response.jsonLines ? { 'application/x-ndjson': { schema: { type: 'string' } } } : {}),
                },
              }
            : route.response.jsonLines
              ? {
                  description: `${route.response.description}, one ${route.response.name} a line`,
                  headers: REQUEST_ID,
                  content: { 'application/x-ndjson': { schema: ref(route.response.name) } }, // the schema of each line
                }
              : json(ref(route.response.name), route.response.description, REQUEST_ID, route.response.example),
      ...Object.fromEntries(errors.map((s) => [String(s), errorResponse(s, false)])),
    },
  }
}

/** How a list pages: the query parameter that takes the cursor, the field that returns the next one, the items. */
function pagination(route: KernelRoute): { cursor: 'cursor'; nextCursor: 'nextCursor'; items: string } | null {
  const parameters = (route.parameters ?? []) as Array<{ name?: string; in?: string }>
  if (route.method !== 'get' || !parameters.some((p) => p.name === 'cursor' && p.in === 'query')) return null
  const properties = (route.response.schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {}
  const arrays = Object.keys(properties).filter((k) => properties[k]!.type === 'array')
  const items = route.items ?? (arrays.length === 1 ? arrays[0] : undefined)
  if (!items || !arrays.includes(items) || !properties.nextCursor)
    throw new Error(
      `${route.path}: a route with a cursor parameter answers nextCursor and one array of items (name it in \`items\` when there are several).`,
    )
  return { cursor: 'cursor', nextCursor: 'nextCursor', items }
}
