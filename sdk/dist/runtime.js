/** Every non-2xx answer, with the service's stable code (C2). Network failures are `code: 'network_error'`. */
export class ApiError extends Error {
    status;
    code;
    requestId;
    details;
    retryAfter;
    name = 'ApiError';
    constructor(status, code, message, requestId, details = [], 
    /** Seconds, from the Retry-After header, when the service sent one. */
    retryAfter = null) {
        super(message);
        this.status = status;
        this.code = code;
        this.requestId = requestId;
        this.details = details;
        this.retryAfter = retryAfter;
    }
}
const sleep = (ms, signal) => new Promise((resolve, reject) => {
    // An abort's reason is an Error: the caller's, or the AbortError DOMException abort() makes.
    if (signal?.aborted)
        return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
        signal?.removeEventListener('abort', abort);
        resolve();
    }
    function abort() {
        clearTimeout(timer);
        reject(signal.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
});
/** Retry-After as seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value, now = Date.now()) {
    if (!value)
        return null;
    if (/^\d+$/.test(value.trim()))
        return Number(value.trim());
    const at = Date.parse(value);
    return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000);
}
/**
 * Whether a refusal may succeed if sent again unchanged: rate limits, unavailability, a key still running, and
 * a 502 whose Retry-After says when the provider may answer (nothing was charged for it).
 */
export function isRetryable(status, code, retryAfter = null) {
    return (status === 429 || status === 503 || (status === 409 && code === 'idempotency_key_in_use') || (status === 502 && retryAfter !== null));
}
/** Exponential backoff with full jitter over [base/2, base], at most maxMs: the wait when no Retry-After was sent. */
export function backoffMs(attempt, maxMs) {
    const base = Math.min(maxMs, 500 * 2 ** attempt);
    return base / 2 + Math.random() * (base / 2);
}
/** `?a=1&b=x` from the defined values of a flat object ('' when there are none). */
export function queryString(query) {
    const entries = Object.entries(query ?? {}).filter(([, v]) => v !== undefined && v !== null);
    return entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}` : '';
}
function responseInfo(res) {
    const limit = res.headers.get('ratelimit-limit');
    return {
        status: res.status,
        requestId: res.headers.get('x-request-id'),
        replayed: res.headers.get('idempotent-replayed') === 'true',
        rateLimit: limit === null
            ? null
            : {
                limit: Number(limit),
                remaining: Number(res.headers.get('ratelimit-remaining')),
                resetSeconds: Number(res.headers.get('ratelimit-reset')),
            },
        retryAfter: parseRetryAfter(res.headers.get('retry-after')),
        headers: res.headers,
    };
}
export class BaseClient {
    baseUrl;
    apiKey;
    maxRetries;
    maxRetryDelayMs;
    fetcher;
    #last = null;
    constructor(options) {
        if (!options?.apiKey)
            throw new TypeError('apiKey is required');
        this.apiKey = options.apiKey;
        this.baseUrl = (options.baseUrl ?? 'http://localhost:3000').replace(/\/+$/, '');
        this.maxRetries = options.maxRetries ?? 2;
        this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
        this.fetcher = options.fetch ?? ((...args) => fetch(...args));
    }
    /**
     * The request id, rate-limit headers and replay flag of this client's latest answer (success or error); null
     * before the first. With calls in flight at once, use a call's `onResponse` instead.
     */
    get lastResponse() {
        return this.#last;
    }
    /**
     * One call with retries. `idempotent`: the operation honours Idempotency-Key, so a POST that may be retried
     * carries one (the caller's or the SDK's own) and is charged once whatever happens to the answers.
     */
    async request(method, path, body, options = {}, idempotent = false) {
        const maxRetries = options.maxRetries ?? this.maxRetries;
        const headers = { authorization: `Bearer ${this.apiKey}`, accept: 'application/json' };
        if (body !== undefined)
            headers['content-type'] = 'application/json';
        for (const [name, value] of Object.entries(options.headers ?? {}))
            headers[name.toLowerCase()] = value;
        if (options.dryRun)
            headers['service-dry-run'] = '1';
        if (options.testOutcome)
            headers['service-test-outcome'] = options.testOutcome;
        if (options.idempotencyKey)
            headers['idempotency-key'] = options.idempotencyKey;
        else if (idempotent && method !== 'GET' && maxRetries > 0 && !options.dryRun && !headers['idempotency-key'])
            headers['idempotency-key'] = `sdk_${crypto.randomUUID()}`;
        const payload = body === undefined ? undefined : JSON.stringify(body);
        for (let attempt = 0;; attempt++) {
            let res;
            try {
                res = await this.fetcher(this.baseUrl + path, { method, headers, body: payload, signal: options.signal });
            }
            catch (e) {
                if (options.signal?.aborted)
                    throw e;
                // The request may or may not have arrived; resending is safe only under an idempotency key (or a GET).
                const safe = method === 'GET' || headers['idempotency-key'] !== undefined;
                if (!safe || attempt >= maxRetries)
                    throw new ApiError(0, 'network_error', `Could not reach ${this.baseUrl}: ${e.message}`, null);
                await sleep(backoffMs(attempt, this.maxRetryDelayMs), options.signal);
                continue;
            }
            const text = await res.text();
            const info = responseInfo(res);
            this.#last = info;
            if (res.ok) {
                options.onResponse?.(info);
                // JSON, or the text of an export (text/csv).
                const json = /^application\/json\b/.test(res.headers.get('content-type') ?? 'application/json');
                return (text ? (json ? JSON.parse(text) : text) : undefined);
            }
            const error = toApiError(res, text, info);
            // A Retry-After longer than the client waits is the answer: throw now rather than retry early.
            const tooLong = error.retryAfter !== null && error.retryAfter * 1000 > this.maxRetryDelayMs;
            if (attempt >= maxRetries || tooLong || !isRetryable(error.status, error.code, error.retryAfter)) {
                options.onResponse?.(info);
                throw error;
            }
            await sleep(error.retryAfter !== null ? error.retryAfter * 1000 : backoffMs(attempt, this.maxRetryDelayMs), options.signal);
        }
    }
    /** A cursor-paginated GET: awaited, its first page; iterated (`for await`), every item of every page. */
    list(path, query, items, options) {
        return new List((cursor) => this.request('GET', path + queryString(cursor ? { ...query, cursor } : query), undefined, options), items);
    }
    /**
     * A GET answered with JSON Lines: each line parsed as it arrives (the answer is never held whole). An error
     * answer throws before the first line; a connection that fails before the answer is retried like a GET.
     */
    async *jsonLines(path, options = {}) {
        const maxRetries = options.maxRetries ?? this.maxRetries;
        const headers = { authorization: `Bearer ${this.apiKey}`, accept: 'application/x-ndjson' };
        for (const [name, value] of Object.entries(options.headers ?? {}))
            headers[name.toLowerCase()] = value;
        let res;
        for (let attempt = 0;; attempt++) {
            try {
                res = await this.fetcher(this.baseUrl + path, { method: 'GET', headers, signal: options.signal });
            }
            catch (e) {
                if (options.signal?.aborted || attempt >= maxRetries)
                    throw new ApiError(0, 'network_error', `Could not reach ${this.baseUrl}: ${e.message}`, null);
                await sleep(backoffMs(attempt, this.maxRetryDelayMs), options.signal);
                continue;
            }
            const info = responseInfo(res);
            this.#last = info;
            options.onResponse?.(info);
            if (res.ok)
                break;
            const error = toApiError(res, await res.text(), info);
            if (attempt >= maxRetries || !isRetryable(error.status, error.code, error.retryAfter))
                throw error;
            await sleep(error.retryAfter !== null ? error.retryAfter * 1000 : backoffMs(attempt, this.maxRetryDelayMs), options.signal);
        }
        if (!res.body)
            return;
        const decoder = new TextDecoder();
        let rest = '';
        for await (const chunk of res.body) {
            rest += decoder.decode(chunk, { stream: true });
            const lines = rest.split('\n');
            rest = lines.pop();
            for (const line of lines)
                if (line)
                    yield JSON.parse(line);
        }
        rest += decoder.decode();
        if (rest)
            yield JSON.parse(rest);
    }
    /** Polls `read` until the job has ended (succeeded or failed), or the timeout or signal stops it. */
    async poll(read, options = {}) {
        const interval = options.intervalMs ?? 1000;
        const deadline = Date.now() + (options.timeoutMs ?? 10 * 60_000);
        for (;;) {
            const job = await read();
            if (job.status === 'succeeded' || job.status === 'failed')
                return job;
            if (Date.now() + interval > deadline)
                throw new ApiError(0, 'timeout', `The job had not ended after ${options.timeoutMs ?? 600_000} ms (last status: ${job.status}).`, null);
            await sleep(interval, options.signal);
        }
    }
}
/**
 * The answer of a list method. `await` it for the first page (with `nextCursor`); `for await` over it for every
 * item, newest first, the next page fetched when the last one is used up; `pages()` for every page.
 */
export class List {
    fetchPage;
    items;
    #first;
    constructor(fetchPage, items) {
        this.fetchPage = fetchPage;
        this.items = items;
    }
    then(onfulfilled, onrejected) {
        this.#first ??= this.fetchPage(undefined);
        return this.#first.then(onfulfilled, onrejected);
    }
    catch(onrejected) {
        return this.then(undefined, onrejected);
    }
    async *pages() {
        let cursor;
        do {
            const page = await this.fetchPage(cursor);
            yield page;
            cursor = page.nextCursor;
        } while (cursor);
    }
    async *[Symbol.asyncIterator]() {
        for await (const page of this.pages())
            yield* this.items(page);
    }
}
function toApiError(res, text, info) {
    try {
        const { error } = JSON.parse(text);
        return new ApiError(res.status, error.code, error.message, error.requestId ?? info.requestId, error.details ?? [], info.retryAfter);
    }
    catch {
        return new ApiError(res.status, `http_${res.status}`, text.slice(0, 200) || res.statusText, info.requestId, [], info.retryAfter);
    }
}
/** Raised when a webhook's signature or timestamp does not check out; answer it with 400 or 401. */
export class WebhookVerificationError extends Error {
    name = 'WebhookVerificationError';
}
const isHeaders = (headers) => typeof headers.get === 'function';
function header(headers, name) {
    if (isHeaders(headers))
        return headers.get(name) ?? undefined;
    for (const [k, v] of Object.entries(headers))
        if (k.toLowerCase() === name)
            return Array.isArray(v) ? v[0] : v;
    return undefined;
}
const encoder = new TextEncoder();
function base64ToBytes(value) {
    const normal = value.replace(/-/g, '+').replace(/_/g, '/');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normal))
        return null;
    try {
        const binary = atob(normal.padEnd(Math.ceil(normal.length / 4) * 4, '='));
        return Uint8Array.from(binary, (c) => c.charCodeAt(0));
    }
    catch {
        return null;
    }
}
function hexToBytes(value) {
    if (!/^(?:[0-9a-f]{2})+$/i.test(value))
        return null;
    return Uint8Array.from(value.match(/../g), (h) => parseInt(h, 16));
}
async function hmacKey(secret) {
    return crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
}
/**
 * Verifies a webhook delivery over the raw body (the exact bytes received, before any JSON parsing) and
 * returns the parsed event. With Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature)
 * it checks `v1,<base64 HMAC-SHA256 of id.timestamp.body>` (key: the secret's base64 part after `whsec_`)
 * and that the timestamp is within `toleranceSeconds`; otherwise it checks `X-Service-Signature:
 * sha256=<hex HMAC-SHA256 of the body>` (key: the whole secret) and the payload's `createdAt` age. The
 * comparison is Web Crypto's HMAC verify, which runs in constant time. `secret` may be several (the new and the
 * previous one during a rotation): any one verifying is enough. Throws WebhookVerificationError.
 */
export async function verifyWebhookSignature(rawBody, headers, secret, options = {}) {
    // Several secrets (a rotation under way on the receiver's side): the delivery verifies if any one of them does.
    if (typeof secret !== 'string') {
        if (!secret.length)
            throw new WebhookVerificationError('No secret to verify with.');
        let last;
        for (const one of secret) {
            try {
                return await verifyWebhookSignature(rawBody, headers, one, options);
            }
            catch (e) {
                if (!(e instanceof WebhookVerificationError))
                    throw e;
                last = e;
            }
        }
        throw last;
    }
    const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
    const now = (options.now?.() ?? new Date()).getTime() / 1000;
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const signatures = header(headers, 'webhook-signature');
    if (id && timestamp && signatures) {
        if (!/^\d+$/.test(timestamp))
            throw new WebhookVerificationError('webhook-timestamp is not a number of seconds.');
        if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300))
            throw new WebhookVerificationError('webhook-timestamp is too old or too far in the future.');
        const keyBytes = base64ToBytes(secret.replace(/^whsec_/, ''));
        if (!keyBytes)
            throw new WebhookVerificationError('The secret is not a whsec_<base64> secret.');
        const key = await hmacKey(keyBytes);
        const signed = encoder.encode(`${id}.${timestamp}.${body}`);
        for (const candidate of signatures.split(' ')) {
            const [version, value] = candidate.split(',', 2);
            const mac = version === 'v1' && value ? base64ToBytes(value) : null;
            if (mac && (await crypto.subtle.verify('HMAC', key, mac, signed)))
                return parseEvent(body);
        }
        throw new WebhookVerificationError('No webhook-signature matches.');
    }
    const legacy = header(headers, 'x-service-signature');
    const mac = legacy?.startsWith('sha256=') ? hexToBytes(legacy.slice(7)) : null;
    if (!mac)
        throw new WebhookVerificationError('The delivery carries neither webhook-signature nor X-Service-Signature.');
    const key = await hmacKey(encoder.encode(secret));
    if (!(await crypto.subtle.verify('HMAC', key, mac, encoder.encode(body))))
        throw new WebhookVerificationError('X-Service-Signature does not match.');
    const event = parseEvent(body);
    const created = Date.parse(event.createdAt ?? '') / 1000;
    if (Number.isNaN(created))
        throw new WebhookVerificationError('The payload has no createdAt to check.');
    if (now - created > (options.maxAgeSeconds ?? 3 * 3600) || created - now > (options.toleranceSeconds ?? 300)) {
        throw new WebhookVerificationError('The payload createdAt is outside the accepted window.');
    }
    return event;
}
function parseEvent(body) {
    try {
        return JSON.parse(body);
    }
    catch {
        throw new WebhookVerificationError('The body is not JSON.');
    }
}
