// One closed set of error codes (contract C2). Every refusal in the service is an ApiError with one of
// these codes; the error handler turns it into `{error: {code, message, requestId, details?}}`.
import { Type, type Static } from '@sinclair/typebox'

export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_request: 400,
  invalid_callback_url: 400,
  schema_too_complex: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  spend_cap_reached: 402,
  permission_denied: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  first_pack_used: 409,
  plan_required: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  document_too_complex: 422,
  document_unreadable: 422,
  document_encrypted: 422,
  document_too_long: 422,
  document_changed: 422,
  rate_limited: 429,
  free_decoding_exhausted: 429,
  free_inference_exhausted: 429,
  internal_error: 500,
  inference_failed: 502,
  inference_unavailable: 503,
  service_unavailable: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export interface ErrorDetail {
  path: string
  message: string
}

export class ApiError extends Error {
  readonly status: number
  readonly code: ErrorCode
  readonly details?: ErrorDetail[]
  readonly headers?: Record<string, string>
  constructor(code: ErrorCode, message: string, details?: ErrorDetail[], headers?: Record<string, string>) {
    super(message)
    this.code = code
    this.details = details
    this.headers = headers
    this.status = ERROR_STATUS[code]
  }
}

const Detail = Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false })

/** The body of every refusal; published as components.schemas.Error. */
export const ErrorBody = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.Unsafe<ErrorCode>({ type: 'string', enum: Object.keys(ERROR_STATUS), description: 'stable; branch on it' }),
        message: Type.String({ description: 'for people; may change' }),
        requestId: Type.String({ description: 'the X-Request-Id of the call' }),
        details: Type.Optional(Type.Array(Detail, { description: 'JSON-pointer paths of the offending values' })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)

export function errorBody(code: ErrorCode, message: string, requestId: string, details?: ErrorDetail[]): Static<typeof ErrorBody> {
  return { error: { code, message, requestId, ...(details ? { details } : {}) } }
}
