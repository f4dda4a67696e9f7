import type { ErrorCode, JobAccepted, TestOutcome } from './index.js';
export interface ClientOptions {
    /** The ksk_live_… (or ksk_test_…) key, sent as `Authorization: Bearer`. */
    apiKey: string;
    /** Default http://localhost:3000. */
    baseUrl?: string;
    /** Retries of 429, 503, 502 with Retry-After, 409 idempotency_key_in_use and network errors. Default 2; 0 turns retries off. */
    maxRetries?: number;
    /**
     * The longest wait before a retry. A Retry-After up to this long is waited exactly; a longer one is not
     * waited at all: the call throws at once, with the ApiError's `retryAfter` saying when to come back.
     * Default 30 000 ms.
     */
    maxRetryDelayMs?: number;
    /** Another fetch (tests, proxies). Default: the global one. */
    fetch?: typeof fetch;
}
/** Options of every call. */
export interface RequestOptions {
    /** Extra request headers of this call (e.g. tracing). The SDK's own options below win over them. */
    headers?: Record<string, string>;
    signal?: AbortSignal;
    /** Overrides the client's maxRetries for this call. */
    maxRetries?: number;
    /** Called with the metadata of the answer the call returns or throws (safe with concurrent calls, unlike `lastResponse`). */
    onResponse?: (response: ResponseInfo) => void;
}
/** Options of a capability call. */
export interface CallOptions extends RequestOptions {
    /** Quote the call (`Service-Dry-Run: 1`): nothing runs, nothing is charged; returns the DryRun report. */
    dryRun?: boolean;
    /** Sent as `Idempotency-Key`. When retries are on and none is given, the SDK makes one per call. */
    idempotencyKey?: string;
    /** Test keys only (`Service-Test-Outcome`): the call answers this error as a live call would. */
    testOutcome?: TestOutcome;
}
/** What the service said about one answer besides its body. */
export interface ResponseInfo {
    status: number;
    /** X-Request-Id: quote it when asking about a call. */
    requestId: string | null;
    /** Idempotent-Replayed: the recorded answer of an earlier call with the same Idempotency-Key, not charged again. */
    replayed: boolean;
    /** The RateLimit-* headers of a capability call; null where the route sends none. */
    rateLimit: {
        limit: number;
        remaining: number;
        resetSeconds: number;
    } | null;
    /** Retry-After in seconds, when sent. */
    retryAfter: number | null;
    /** Every header, for anything else. */
    headers: Headers;
}
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
declare const resultType: unique symbol;
/**
 * The 202 answer of an async call, typed with the result its job will have: `waitForJob` on it returns a job
 * whose `result` is R, without a cast. (`R` lives in the type only; the object is the JobAccepted body.)
 */
export type AcceptedJob<R> = JobAccepted & {
    readonly [resultType]?: R;
};
/** Retry-After as seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
export declare function parseRetryAfter(value: string | null, now?: number): number | null;
/**
 * Whether a refusal may succeed if sent again unchanged: rate limits, unavailability, a key still running, and
 * a 502 whose Retry-After says when the provider may answer (nothing was charged for it).
 */
export declare function isRetryable(status: number, code: string, retryAfter?: number | null): boolean;
/** Exponential backoff with full jitter over [base/2, base], at most maxMs: the wait when no Retry-After was sent. */
export declare function backoffMs(attempt: number, maxMs: number): number;
/** `?a=1&b=x` from the defined values of a flat object ('' when there are none). */
export declare function queryString(query: object | undefined): string;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export declare class BaseClient {
    #private;
    readonly baseUrl: string;
    protected readonly apiKey: string;
    protected readonly maxRetries: number;
    protected readonly maxRetryDelayMs: number;
    protected readonly fetcher: typeof fetch;
    constructor(options: ClientOptions);
    /**
     * The request id, rate-limit headers and replay flag of this client's latest answer (success or error); null
     * before the first. With calls in flight at once, use a call's `onResponse` instead.
     */
    get lastResponse(): ResponseInfo | null;
    /**
     * One call with retries. `idempotent`: the operation honours Idempotency-Key, so a POST that may be retried
     * carries one (the caller's or the SDK's own) and is charged once whatever happens to the answers.
     */
    protected request<T>(method: Method, path: string, body: unknown, options?: CallOptions, idempotent?: boolean): Promise<T>;
    /** A cursor-paginated GET: awaited, its first page; iterated (`for await`), every item of every page. */
    protected list<Page extends {
        nextCursor?: string;
    }, Item>(path: string, query: object | undefined, items: (page: Page) => Item[], options?: RequestOptions): List<Page, Item>;
    /**
     * A GET answered with JSON Lines: each line parsed as it arrives (the answer is never held whole). An error
     * answer throws before the first line; a connection that fails before the answer is retried like a GET.
     */
    protected jsonLines<Line>(path: string, options?: RequestOptions): AsyncGenerator<Line, void, undefined>;
    /** Polls `read` until the job has ended (succeeded or failed), or the timeout or signal stops it. */
    protected poll<J extends {
        status: string;
    }>(read: () => Promise<J>, options?: WaitOptions): Promise<J>;
}
/**
 * The answer of a list method. `await` it for the first page (with `nextCursor`); `for await` over it for every
 * item, newest first, the next page fetched when the last one is used up; `pages()` for every page.
 */
export declare class List<Page extends {
    nextCursor?: string;
}, Item> implements PromiseLike<Page>, AsyncIterable<Item> {
    #private;
    private readonly fetchPage;
    private readonly items;
    constructor(fetchPage: (cursor: string | undefined) => Promise<Page>, items: (page: Page) => Item[]);
    then<A = Page, B = never>(onfulfilled?: ((page: Page) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B>;
    catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page | B>;
    pages(): AsyncGenerator<Page, void, undefined>;
    [Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined>;
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
 * comparison is Web Crypto's HMAC verify, which runs in constant time. `secret` may be several (the new and the
 * previous one during a rotation): any one verifying is enough. Throws WebhookVerificationError.
 */
export declare function verifyWebhookSignature<E>(rawBody: string | Uint8Array, headers: HeaderBag, secret: string | readonly string[], options?: VerifyOptions): Promise<E>;
export {};
