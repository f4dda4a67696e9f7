// GET /v1/openapi.json (C14), built once at boot from the registry and the kernel routes. Every response
// schema is the TypeBox schema the code builds that body with (kernel) or the capability's published result
// schema (run/result.ts) with `usage`; the tests validate every 200/202 they receive against this document.
// The parts live in core/openapi/: the kernel routes table, the path of a capability, the shared components.
import type Router from '@koa/router'
import type { Config } from './config.ts'
import type { ModelProvider } from './models/provider.ts'
import { ErrorBody } from './errors.ts'
import { JobAccepted } from './jobs/view.ts'
import { DryRun } from './pipeline/dry-run.ts'
import type { Capability } from './run/registry.ts'
import { ReviewMark } from './reviews/queue.ts'
import { Usage } from './wallet/wallet.ts'
import { WebhookPayload } from './jobs/callbacks.ts'
import { BatchWebhookPayload } from './batches/completed.ts'
import { strictRouter } from './http/routing.ts'
import { capabilityPath } from './openapi/capability-path.ts'
import { components } from './openapi/components.ts'
import { kernelOperation } from './openapi/kernel-path.ts'
import { TAGS } from './openapi/kernel-route.ts'
import { KERNEL_ROUTES } from './openapi/kernel-routes.ts'
import { eventSchemas, webhooks } from './openapi/webhooks.ts'

/** `provider`: the server's model provider, which decides whether each capability can be served (x-available). */
export function buildOpenApi(capabilities: Capability[], config: Config, provider: ModelProvider) {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const cap of capabilities) paths[`/v1/${cap.name}`] = capabilityPath(cap, config, provider)
  const schemas: Record<string, unknown> = {
    Usage,
    Error: ErrorBody,
    DryRun,
    JobAccepted,
    WebhookPayload,
    BatchWebhookPayload,
    ReviewMark,
    ...eventSchemas(),
  }
  for (const route of KERNEL_ROUTES) {
    if (!route.response.csv && route.status !== 204) schemas[route.response.name] = route.response.schema
    if (route.dryRun) schemas[route.dryRun.name] = route.dryRun.schema
    if (route.requestBody) schemas[route.requestBody.name] = route.requestBody.schema
    paths[route.path] = { ...paths[route.path], [route.method]: kernelOperation(route) }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Metered AI Capability API',
      version: '1.0.0',
      description:
        'Capability endpoints paid from one prepaid credit wallet (1 credit = 0.01 USD), with dry runs, idempotency, async jobs and signed webhooks.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'The server this document is served from' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    security: [{ bearer: [] }],
    paths,
    webhooks: webhooks(),
    components: components(schemas),
  }
}

/** GET /v1/openapi.json (public): the document as built once, served as the same bytes every time. */
export function openApiRouter(document: ReturnType<typeof buildOpenApi>): Router {
  const body = JSON.stringify(document)
  const router = strictRouter()
  router.get('/v1/openapi.json', (ctx) => {
    ctx.type = 'application/json'
    ctx.body = body
  })
  return router
}
