// The webhooks the service sends: jobFinished, POSTed to a job's callbackUrl, batchCompleted, to a batch's
// (core/webhooks/), and one per event type (C17), POSTed to the account's webhook endpoints (core/events/).
import { EVENT_TYPES, EVENT_TYPE_NAMES, eventSchema, type EventType } from '../events/types.ts'
import { JOB_EVENT_TYPES } from '../jobs/events.ts'
import { BATCH_EVENT_TYPES } from '../batches/completed.ts'
import { REVIEW_EVENT_TYPES } from '../reviews/queue.ts'
import { ref } from './responses.ts'

/** components.schemas name of an event type's envelope: balance.low → BalanceLowEvent. */
export const eventSchemaName = (type: EventType) =>
  type
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('') + 'Event'

/** Every event type's data, summary and example: the job events' (core/jobs), the batch's (core/batches), the reviews' (core/reviews) and core/events' own. */
const TYPES = { ...JOB_EVENT_TYPES, ...BATCH_EVENT_TYPES, ...REVIEW_EVENT_TYPES, ...EVENT_TYPES }

/** The envelope schema of each event type, by its components.schemas name. */
export const eventSchemas = () => Object.fromEntries(EVENT_TYPE_NAMES.map((t) => [eventSchemaName(t), eventSchema(t, TYPES[t].data)]))

function eventWebhook(type: EventType) {
  return {
    post: {
      operationId: `event_${type.replace(/\W/g, '_')}`,
      summary: type,
      description:
        TYPES[type].summary +
        ' POSTed to each webhook endpoint subscribed to the type. Verify webhook-signature with a Standard Webhooks library and the endpoint’s whsec_ secret ' +
        '(during the 24 h after a rotation, two v1 signatures: either secret verifies). webhook-id is the event id on every attempt and resend: deduplicate on it.',
      security: [{ webhookSignature: [] }],
      parameters: [
        { name: 'webhook-id', in: 'header', required: true, description: 'the event id (evt_…)', schema: { type: 'string' } },
        {
          name: 'webhook-timestamp',
          in: 'header',
          required: true,
          description: 'Unix seconds of this attempt; reject stale ones',
          schema: { type: 'string', pattern: '^[0-9]+$' },
        },
        {
          name: 'webhook-signature',
          in: 'header',
          required: true,
          description: 'v1,<base64> per secret, space-separated',
          schema: { type: 'string' },
        },
        { name: 'X-Service-Event', in: 'header', required: true, schema: { type: 'string', enum: [type] } },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: ref(eventSchemaName(type)),
            example: {
              id: 'evt_3f1c9a7b2d4e4f0a8b6c1d2e3f4a5b6c',
              type,
              createdAt: '2026-01-05T10:00:04.000Z',
              livemode: true,
              data: TYPES[type].example,
            },
          },
        },
      },
      responses: {
        '200': { description: 'Any 2xx acknowledges the delivery' },
        default: { description: 'Anything but 2xx (redirects included) is a failed attempt, retried up to 5 times' },
      },
    },
  }
}

export function webhooks() {
  return {
    ...Object.fromEntries(EVENT_TYPE_NAMES.map((t) => [t, eventWebhook(t)])),
    jobFinished: {
      post: {
        operationId: 'jobFinished',
        summary: 'An async job ended',
        description:
          'POSTed to callbackUrl when an async job ends. Verify `webhook-signature` with any Standard Webhooks library and the account’s `whsec_…` secret of the job’s mode ' +
          '(a live key’s job: the live secret; a test key’s job: the test secret, never the live one, with `livemode: false` and no `balanceRemaining` in its usage) ' +
          '(v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body"> keyed with the base64-decoded part after `whsec_`; during the 24 h after a rotation, ' +
          'one signature per secret, space-separated), or `X-Service-Signature: sha256=<hex HMAC-SHA256 of the body keyed with the whole secret string>`. ' +
          'Retries reuse the same webhook-id (= deliveryId).',
        security: [{ webhookSignature: [] }],
        parameters: [
          {
            name: 'webhook-id',
            in: 'header',
            required: true,
            description: 'the delivery id (= body deliveryId), the same on every attempt',
            schema: { type: 'string' },
          },
          {
            name: 'webhook-timestamp',
            in: 'header',
            required: true,
            description: 'Unix seconds of this attempt; reject stale ones',
            schema: { type: 'string', pattern: '^[0-9]+$' },
          },
          {
            name: 'X-Service-Signature',
            in: 'header',
            required: true,
            description: 'sha256=<hex HMAC-SHA256 of the raw body>',
            schema: { type: 'string' },
          },
          { name: 'X-Service-Event', in: 'header', required: true, schema: { type: 'string', enum: ['job.completed', 'job.failed'] } },
          { name: 'X-Service-Job-Id', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
          {
            name: 'X-Service-Request-Id',
            in: 'header',
            required: true,
            description: 'the requestId of the call that created the job',
            schema: { type: 'string' },
          },
          { name: 'X-Service-Delivery-Id', in: 'header', required: true, description: '= webhook-id', schema: { type: 'string' } },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookPayload') } } },
        responses: ACKNOWLEDGED,
      },
    },
    batchCompleted: {
      post: {
        operationId: 'batchCompleted',
        summary: 'Every item of a batch has ended',
        description:
          'POSTed once to a batch’s callbackUrl when its last item has ended (succeeded, failed, cancelled or expired), with the batch object. ' +
          'Signed, verified and retried as jobFinished is (the secret of the batch’s key mode); X-Service-Event is `batch.completed` and there is no X-Service-Job-Id.',
        security: [{ webhookSignature: [] }],
        parameters: [
          { name: 'webhook-id', in: 'header', required: true, description: '= body deliveryId', schema: { type: 'string' } },
          { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
          { name: 'X-Service-Signature', in: 'header', required: true, schema: { type: 'string' } },
          { name: 'X-Service-Event', in: 'header', required: true, schema: { type: 'string', enum: ['batch.completed'] } },
          {
            name: 'X-Service-Request-Id',
            in: 'header',
            required: true,
            description: 'the requestId of the batch’s acceptance',
            schema: { type: 'string' },
          },
          { name: 'X-Service-Delivery-Id', in: 'header', required: true, description: '= webhook-id', schema: { type: 'string' } },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: ref('BatchWebhookPayload') } } },
        responses: ACKNOWLEDGED,
      },
    },
  }
}

const ACKNOWLEDGED = {
  '200': { description: 'Any 2xx acknowledges the delivery' },
  default: { description: 'Anything but 2xx (redirects included) is a failed attempt, retried up to 5 times' },
}
