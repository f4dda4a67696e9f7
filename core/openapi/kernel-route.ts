// The shape of a kernel route and the tags routes are grouped by: a leaf, so that route lists import it, not each other.
import type { TSchema } from '@sinclair/typebox'

/**
 * A route of the kernel: one entry each. `response.schema` is the TypeBox schema its handler's body is typed
 * by; it is published under components.schemas[response.name].
 */
export interface KernelRoute {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  path: string
  operationId: string
  summary: string
  description?: string
  tag: keyof typeof TAGS
  /** false: no API key (public). */
  authenticated: boolean
  parameters?: object[]
  /** A JSON body, published under components.schemas[requestBody.name]. */
  requestBody?: { name: string; schema: TSchema | object; example?: unknown }
  /** The success status when it is not 200 (201 for a creation, 202 for work queued, 204 for a deletion: no body). */
  status?: 201 | 202 | 204
  /**
   * `jsonLines`: the answer is application/x-ndjson, one `schema` a line (published under components.schemas[name]
   * all the same). `csv`: the answer is text/csv (an export), not JSON; with `jsonLines` too, JSON lines instead
   * when the query asks (untyped lines, as the CSV's).
   */
  response: {
    name: string
    schema: TSchema | object
    description: string
    example?: unknown
    csv?: true
    jsonLines?: true
  }
  /** The 200 of Service-Dry-Run beside the route's own success (an acceptance's 202), marked `x-dry-run`. */
  dryRun?: { name: string; schema: TSchema | object; description: string }
  /** A list (a GET with a `cursor` parameter) whose body has several arrays: the one it pages through. */
  items?: string
  /** Error statuses besides 401, 429 and 503 (every authenticated route has them: a bad key, a client throttled after failed keys, a database outage). */
  errors?: number[]
}

export const TAGS = {
  capabilities: 'The metered endpoints: each call is charged its price on success only',
  jobs: 'Async jobs (C7) of the document capabilities',
  account: 'The wallet of the calling key’s account',
  events: 'Webhook endpoints, the event log and alerts (C17): the account’s events, signed with the Standard Webhooks scheme',
  batches: 'Thousands of calls of one endpoint in one request, each item charged on its own (C19)',
  team: 'Keys, members, invitations, the audit log and single sign-on (C18): keys with permissions "all" only',
  reviews: 'Human review of extracted values code could not verify (C21)',
} as const
