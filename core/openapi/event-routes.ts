// The routes of C17 as core/openapi/kernel-routes.ts lists them: webhook endpoints, the event log, alerts.
import { AlertInput, AlertSettings } from '../events/alerts.ts'
import { EndpointInput, EndpointList, EndpointPatch, EndpointSecret, WebhookEndpoint, WebhookEndpointCreated } from '../events/endpoints.ts'
import { EventPage, eventsParameters, EventWithDeliveries, Resent, ResendInput } from '../events/log.ts'
import { Type } from '@sinclair/typebox'
import type { KernelRoute } from './kernel-route.ts'

const id = (what: string, pattern: string) => [
  { name: 'id', in: 'path', required: true, description: `the ${what}’s id`, schema: { type: 'string', pattern, maxLength: 80 } },
]
const endpointId = id('endpoint', '^we_')
const events = { tag: 'events' as const, authenticated: true }
// 403: a key without permissions "all", or a test key (it never changes where the account's events go).
const MANAGE = [403]
const Pinged = Type.Object({ eventId: Type.String() }, { additionalProperties: false })

export const EVENT_ROUTES: KernelRoute[] = [
  {
    ...events,
    method: 'get',
    path: '/v1/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'List the account’s webhook endpoints',
    description: 'Oldest first; never a secret.',
    response: { name: 'WebhookEndpointList', schema: EndpointList, description: 'The endpoints' },
    errors: MANAGE,
  },
  {
    ...events,
    method: 'post',
    path: '/v1/webhook-endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint',
    description:
      'At most 16 an account. The URL must be https and public (checked now and at every attempt). The signing secret is in this answer only.',
    requestBody: {
      name: 'WebhookEndpointInput',
      schema: EndpointInput,
      example: { url: 'https://example.com/hooks/capapi', events: ['balance.*', 'job.failed'], description: 'ops alerts' },
    },
    status: 201,
    response: { name: 'WebhookEndpointCreated', schema: WebhookEndpointCreated, description: 'The endpoint and its secret, shown once' },
    errors: [400, ...MANAGE],
  },
  {
    ...events,
    method: 'get',
    path: '/v1/webhook-endpoints/{id}',
    operationId: 'getWebhookEndpoint',
    summary: 'Get a webhook endpoint',
    parameters: endpointId,
    response: { name: 'WebhookEndpoint', schema: WebhookEndpoint, description: 'The endpoint' },
    errors: [...MANAGE, 404],
  },
  {
    ...events,
    method: 'patch',
    path: '/v1/webhook-endpoints/{id}',
    operationId: 'updateWebhookEndpoint',
    summary: 'Change, disable or enable a webhook endpoint',
    description: 'Fields left out stay. A disabled endpoint receives nothing, and its pending deliveries are skipped.',
    parameters: endpointId,
    requestBody: { name: 'WebhookEndpointPatch', schema: EndpointPatch, example: { enabled: false } },
    response: { name: 'WebhookEndpoint', schema: WebhookEndpoint, description: 'The endpoint' },
    errors: [400, ...MANAGE, 404],
  },
  {
    ...events,
    method: 'delete',
    path: '/v1/webhook-endpoints/{id}',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    parameters: endpointId,
    status: 204,
    response: { name: '', schema: {}, description: 'Deleted' },
    errors: [...MANAGE, 404],
  },
  {
    ...events,
    method: 'post',
    path: '/v1/webhook-endpoints/{id}/rotate-secret',
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'Rotate an endpoint’s signing secret',
    description:
      'The new secret is in this answer only. For 24 hours the previous one keeps signing beside it: webhook-signature carries two v1 entries, so a receiver verifies with either.',
    parameters: endpointId,
    response: { name: 'WebhookEndpointSecret', schema: EndpointSecret, description: 'The new secret' },
    errors: [...MANAGE, 404],
  },
  {
    ...events,
    method: 'post',
    path: '/v1/webhook-endpoints/{id}/test',
    operationId: 'testWebhookEndpoint',
    summary: 'Send a ping event to one endpoint',
    description: 'A ping event, logged like any other, to this endpoint alone.',
    parameters: endpointId,
    status: 202,
    response: { name: 'PingQueued', schema: Pinged, description: 'The ping event’s id' },
    errors: [...MANAGE, 404],
  },
  {
    ...events,
    method: 'get',
    path: '/v1/events',
    operationId: 'listEvents',
    summary: 'List the account’s events',
    description: 'Newest first, kept 30 days. A live key sees live events, a test key the test-mode ones (livemode: false).',
    parameters: eventsParameters,
    response: { name: 'EventPage', schema: EventPage, description: 'A page of events' },
    errors: [400],
  },
  {
    ...events,
    method: 'get',
    path: '/v1/events/{id}',
    operationId: 'getEvent',
    summary: 'Get an event with its deliveries and their attempts',
    description: 'A skipped delivery says why (reason), e.g. no endpoint subscribes to the type.',
    parameters: id('event', '^evt_'),
    response: { name: 'EventWithDeliveries', schema: EventWithDeliveries, description: 'The event' },
    errors: [404],
  },
  {
    ...events,
    method: 'post',
    path: '/v1/events/{id}/resend',
    operationId: 'resendEvent',
    summary: 'Send an event again',
    description:
      'New deliveries of the same event (the same webhook-id, so a receiver that saw it already dedupes it): to endpointId, or to every endpoint subscribed to its type now.',
    parameters: id('event', '^evt_'),
    requestBody: { name: 'ResendInput', schema: ResendInput, example: {} },
    status: 202,
    response: { name: 'EventResent', schema: Resent, description: 'How many deliveries were queued' },
    errors: [400, ...MANAGE, 404],
  },
  {
    ...events,
    method: 'get',
    path: '/v1/alerts',
    operationId: 'getAlerts',
    summary: 'Get the alert settings',
    response: { name: 'AlertSettings', schema: AlertSettings, description: 'The settings (no thresholds by default)' },
    errors: MANAGE,
  },
  {
    ...events,
    method: 'put',
    path: '/v1/alerts',
    operationId: 'putAlerts',
    summary: 'Set balance thresholds, key budget percents and email',
    description:
      'balance.low fires once per crossing, in the transaction of the charge that crossed; not again until balance.recovered. key.budget_threshold fires once per key, percent and UTC month. Fields left out stay.',
    requestBody: {
      name: 'AlertInput',
      schema: AlertInput,
      example: { balanceThresholds: [500, 100], keyBudgetPercents: [50, 90, 100], email: true },
    },
    response: { name: 'AlertSettings', schema: AlertSettings, description: 'The settings' },
    errors: [400, ...MANAGE],
  },
]
