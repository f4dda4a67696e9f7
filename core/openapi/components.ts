// The document's shared components: the security schemes, the capability headers a client sends, the headers
// the service answers with, and the schemas the paths name.
import { TEST_OUTCOMES } from '../pipeline/test-outcomes.ts'

export function components(schemas: Record<string, unknown>) {
  return {
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description:
          'Authorization: Bearer ksk_live_… (spends credits) or ksk_test_… (test mode: the example answer, never a charge or a model call)',
      },
      webhookSignature: {
        type: 'apiKey',
        in: 'header',
        name: 'webhook-signature',
        description:
          'Standard Webhooks signature made with the account’s webhook secret of the job’s mode, live or test (see the jobFinished webhook)',
      },
    },
    parameters: {
      DryRun: {
        name: 'Service-Dry-Run',
        in: 'header',
        required: false,
        description:
          'Send 1 (or true) for a quote: authentication, rate limit, pause, validation and the balance check run, and a 200 DryRun report says what the live call would answer. Nothing is charged, no idempotency record, no model call (C3). 0 (or false) is a live call, as without the header.',
        schema: { type: 'string', enum: ['1', 'true', '0', 'false'] },
      },
      TestOutcome: {
        name: 'Service-Test-Outcome',
        in: 'header',
        required: false,
        description:
          'Test keys (ksk_test_…) only: the call answers this error as a live call would (status, body, Retry-After and RateLimit-* headers), at the stage a live call meets it; ' +
          'for an async call, inference_failed, unprocessable and internal_error fail the job after its 202. Nothing is charged. A live key sending it gets 400 invalid_request.',
        schema: { type: 'string', enum: Object.keys(TEST_OUTCOMES) },
      },
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Any 1–128 printable ASCII characters. For 24 h the same key with the same body replays the first answer byte for byte (Idempotent-Replayed: true) and charges nothing again; with another body it is 409 idempotency_key_reused; while the first call runs, 409 idempotency_key_in_use (C5).',
        schema: { type: 'string', pattern: '^[!-~]{1,128}$' },
      },
    },
    headers: {
      'X-Request-Id': {
        description: 'The id of this request (req_…), also in every error body',
        required: true,
        schema: { type: 'string' },
      },
      'RateLimit-Limit': { description: 'Calls per minute allowed to this key on this endpoint (C6)', schema: { type: 'integer' } },
      'RateLimit-Remaining': { description: 'Calls left in the current window', schema: { type: 'integer' } },
      'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
      'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
      'Idempotent-Replayed': {
        description: 'true when this is the recorded answer of an earlier call with the same Idempotency-Key',
        schema: { type: 'string', enum: ['true'] },
      },
    },
    schemas,
  }
}
