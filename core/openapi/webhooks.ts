// The webhooks the service sends: jobFinished, POSTed to a job's callbackUrl, and batchCompleted, to a batch's
// (core/webhooks/).
import { ref } from './responses.ts'

export function webhooks() {
  return {
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
