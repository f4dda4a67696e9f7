export interface ClientOptions {
    /** The ksk_live_… key, sent as `Authorization: Bearer`. */
    apiKey: string;
    /** Default http://localhost:3000. */
    baseUrl?: string;
    /** Retries of 429, 503, 409 idempotency_key_in_use and network errors. Default 2; 0 turns retries off. */
    maxRetries?: number;
    /** Upper bound of one backoff wait, Retry-After included. Default 30 000 ms. */
    maxRetryDelayMs?: number;
    /** Another fetch (tests, proxies). Default: the global one. */
    fetch?: typeof fetch;
}
export interface CallOptions {
    /** Quote the call (`Service-Dry-Run: 1`): nothing runs, nothing is charged; returns the DryRun report. */
    dryRun?: boolean;
    /** Sent as `Idempotency-Key`. When retries are on and none is given, the SDK makes one per call. */
    idempotencyKey?: string;
    signal?: AbortSignal;
    /** Overrides the client's maxRetries for this call. */
    maxRetries?: number;
}
import type { ErrorCode } from './index.js';
/** The service's stable codes, plus the SDK's own: `network_error`, `timeout`, and `http_<status>` for a non-JSON answer. */
export type ApiErrorCode = ErrorCode | 'network_error' | 'timeout' | `http_${number}`;
export interface ErrorDetail {
    path: string;
    message: string;
}
/** Every non-2xx answer, with the service's stable code (C2). Network failures are `code: 'network_error'`. */
export declare class ApiError extends Error {
    readonly status: number;
    readonly code: ApiErrorCode;
    readonly requestId: string | null;
    readonly details: ErrorDetail[];
    /** Seconds, from the Retry-After header, when the service sent one. */
    readonly retryAfter: number | null;
    name: string;
    constructor(status: number, code: ApiErrorCode, message: string, requestId: string | null, details?: ErrorDetail[], 
    /** Seconds, from the Retry-After header, when the service sent one. */
    retryAfter?: number | null);
}
/** Retry-After as seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
export declare function parseRetryAfter(value: string | null, now?: number): number | null;
/** Whether a refusal may succeed if sent again unchanged: rate limits, unavailability, a key still running. */
export declare function isRetryable(status: number, code: string): boolean;
/** Exponential backoff with full jitter over [base/2, base]; Retry-After, when sent, is the floor. */
export declare function backoffMs(attempt: number, retryAfterSeconds: number | null, maxMs: number): number;
/** `?a=1&b=x` from the defined values of a flat object ('' when there are none). */
export declare function queryString(query: object | undefined): string;
export declare class BaseClient {
    readonly baseUrl: string;
    protected readonly apiKey: string;
    protected readonly maxRetries: number;
    protected readonly maxRetryDelayMs: number;
    protected readonly fetcher: typeof fetch;
    constructor(options: ClientOptions);
    /** One call with retries. A POST that may be retried always carries an Idempotency-Key, so it is charged once. */
    protected request<T>(method: 'GET' | 'POST', path: string, body?: unknown, options?: CallOptions): Promise<T>;
    /** Polls `read` until the job has ended (succeeded or failed), or the timeout or signal stops it. */
    protected poll<J extends {
        status: string;
    }>(read: () => Promise<J>, options?: WaitOptions): Promise<J>;
}
export interface WaitOptions {
    /** Between two reads. Default 1000 ms. */
    intervalMs?: number;
    /** Give up (ApiError code 'timeout') after this long. Default 10 minutes. */
    timeoutMs?: number;
    signal?: AbortSignal;
}
export interface VerifyOptions {
    /** Standard Webhooks: the largest distance between webhook-timestamp and now. Default 300 s. */
    toleranceSeconds?: number;
    /** X-Service-Signature only (no signed timestamp header): the oldest payload `createdAt` accepted. Default 3 h, the span of the retry schedule. */
    maxAgeSeconds?: number;
    now?: () => Date;
}
/** Raised when a webhook's signature or timestamp does not check out; answer it with 400 or 401. */
export declare class WebhookVerificationError extends Error {
    name: string;
}
type HeaderBag = Headers | Record<string, string | string[] | undefined>;
/**
 * Verifies a webhook delivery over the raw body (the exact bytes received, before any JSON parsing) and
 * returns the parsed event. With Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature)
 * it checks `v1,<base64 HMAC-SHA256 of id.timestamp.body>` (key: the secret's base64 part after `whsec_`)
 * and that the timestamp is within `toleranceSeconds`; otherwise it checks `X-Service-Signature:
 * sha256=<hex HMAC-SHA256 of the body>` (key: the whole secret) and the payload's `createdAt` age. The
 * comparison is Web Crypto's HMAC verify, which runs in constant time. Throws WebhookVerificationError.
 */
export declare function verifyWebhookSignature<E>(rawBody: string | Uint8Array, headers: HeaderBag, secret: string, options?: VerifyOptions): Promise<E>;
export {};
