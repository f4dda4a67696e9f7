import { BaseClient, List, type AcceptedJob, type CallOptions, type RequestOptions, type VerifyOptions, type WaitOptions } from './runtime.js';
export { ApiError, List, WebhookVerificationError, isRetryable, parseRetryAfter, type AcceptedJob, type ApiErrorCode, type CallOptions, type ClientOptions, type ErrorDetail, type RequestOptions, type ResponseInfo, type VerifyOptions, type WaitOptions } from './runtime.js';
/** The service's stable error codes: branch on them, never on messages. */
export type ErrorCode = "invalid_json" | "invalid_request" | "invalid_callback_url" | "schema_too_complex" | "unauthorized" | "insufficient_credits" | "spend_cap_reached" | "permission_denied" | "not_found" | "method_not_allowed" | "idempotency_key_reused" | "idempotency_key_in_use" | "first_pack_used" | "plan_required" | "payload_too_large" | "unsupported_media_type" | "unprocessable" | "document_too_complex" | "document_unreadable" | "document_encrypted" | "document_too_long" | "document_changed" | "rate_limited" | "free_decoding_exhausted" | "free_inference_exhausted" | "internal_error" | "inference_failed" | "inference_unavailable" | "service_unavailable";
/** The refusals a test key can ask for with `testOutcome` (Service-Test-Outcome). */
export type TestOutcome = "rate_limited" | "insufficient_credits" | "spend_cap_reached" | "idempotency_key_in_use" | "idempotency_key_reused" | "inference_unavailable" | "inference_failed" | "unprocessable" | "internal_error" | "service_unavailable" | "document_too_complex" | "document_unreadable" | "document_encrypted" | "document_too_long";
export type Usage = {
    /** credits this call charged */
    credits: number;
    /** credits available after the charge */
    balanceRemaining: number;
    /** how this size-priced call was measured (x-price-size) */
    size?: {
        unit: "page" | ("1k-tokens");
        /** pages of the call's documents, or its text in 1,000-token units */
        units: number;
        /** units the base price (x-price) covers */
        included: number;
        /** credits per unit beyond included */
        perUnit: number;
    };
    /** answered from the result cache (Service-Cache: hit): no model call, the hit price charged */
    cached?: true;
    /** false: a test key */
    livemode: boolean;
};
export type ErrorBody = {
    error: {
        /** stable; branch on it */
        code: "invalid_json" | "invalid_request" | "invalid_callback_url" | "schema_too_complex" | "unauthorized" | "insufficient_credits" | "spend_cap_reached" | "permission_denied" | "not_found" | "method_not_allowed" | "idempotency_key_reused" | "idempotency_key_in_use" | "first_pack_used" | "plan_required" | "payload_too_large" | "unsupported_media_type" | "unprocessable" | "document_too_complex" | "document_unreadable" | "document_encrypted" | "document_too_long" | "document_changed" | "rate_limited" | "free_decoding_exhausted" | "free_inference_exhausted" | "internal_error" | "inference_failed" | "inference_unavailable" | "service_unavailable";
        /** for people; may change */
        message: string;
        /** the X-Request-Id of the call */
        requestId: string;
        /** JSON-pointer paths of the offending values */
        details?: Array<{
            path: string;
            message: string;
        }>;
    };
};
export type DryRun = {
    dryRun: true;
    /** e.g. /v1/classify */
    endpoint: string;
    /** the status the live call would answer now */
    liveStatus: number;
    /** credits the live call would charge (0 when it would be refused) */
    wouldCharge: number;
    /** this input's price: the endpoint's price plus any size surcharge (x-price) */
    price: number;
    /** how this size-priced call was measured (x-price-size) */
    size?: {
        unit: "page" | ("1k-tokens");
        /** pages of the call's documents, or its text in 1,000-token units */
        units: number;
        /** units the base price (x-price) covers */
        included: number;
        /** credits per unit beyond included */
        perUnit: number;
    };
    /** the live call would be answered from the result cache: wouldCharge is the hit price */
    cached?: true;
    /** credits available now (balance minus open holds) */
    balance: number;
    /** the refusal the live call would get */
    error?: {
        /** stable; branch on it */
        code: "invalid_json" | "invalid_request" | "invalid_callback_url" | "schema_too_complex" | "unauthorized" | "insufficient_credits" | "spend_cap_reached" | "permission_denied" | "not_found" | "method_not_allowed" | "idempotency_key_reused" | "idempotency_key_in_use" | "first_pack_used" | "plan_required" | "payload_too_large" | "unsupported_media_type" | "unprocessable" | "document_too_complex" | "document_unreadable" | "document_encrypted" | "document_too_long" | "document_changed" | "rate_limited" | "free_decoding_exhausted" | "free_inference_exhausted" | "internal_error" | "inference_failed" | "inference_unavailable" | "service_unavailable";
        /** for people; may change */
        message: string;
        /** JSON-pointer paths of the offending values */
        details?: Array<{
            path: string;
            message: string;
        }>;
    };
};
/** The job is at `Location` (GET /v1/jobs/{id}) */
export type JobAccepted = {
    jobId: string;
    status: "queued";
    requestId: string;
    livemode: boolean;
    credits: {
        /** this input's price, held until the job ends: charged if it succeeds, released if not */
        held: number;
    };
    /** what stands in the way of the callback; absent when nothing does (or no callbackUrl) */
    warnings?: Array<{
        /** webhook_secret_missing: no signing secret of this mode on the account, the delivery will be skipped; webhook_secret_unreadable: the secret cannot be opened with the server’s keys, the delivery will fail */
        code: "webhook_secret_missing" | "webhook_secret_unreadable";
        message: string;
    }>;
};
export type WebhookPayload = {
    /** the same on every attempt (= webhook-id): deduplicate on it */
    deliveryId: string;
    event: "job.completed" | "job.failed";
    createdAt: string;
    /** false: a test key's job, signed with the account's test secret (which the live secret does not verify) */
    livemode: boolean;
    job: {
        jobId: string;
        /** e.g. /v1/parse */
        endpoint: string;
        status: "queued" | "running" | "succeeded" | "failed";
        createdAt: string;
        updatedAt: string;
        startedAt?: string;
        finishedAt?: string;
        requestId: string;
        livemode: boolean;
        /** a long input answered in parts: model requests ended, of how many (absent for a job of one request) */
        progress?: {
            done: number;
            total: number;
        };
        /** when succeeded: the body the synchronous call returns, usage included */
        result?: {
            usage: {
                /** credits this call charged */
                credits: number;
                /** credits available after the charge; absent in a test job */
                balanceRemaining?: number;
                /** how this size-priced call was measured (x-price-size) */
                size?: {
                    unit: "page" | ("1k-tokens");
                    /** pages of the call's documents, or its text in 1,000-token units */
                    units: number;
                    /** units the base price (x-price) covers */
                    included: number;
                    /** credits per unit beyond included */
                    perUnit: number;
                };
                /** answered from the result cache (Service-Cache: hit): no model call, the hit price charged */
                cached?: true;
                /** false: a test key */
                livemode: boolean;
            };
            [key: string]: unknown;
        };
        /** when a person completed the review of `result` (C21, docs/api.md "Human review"): the result as reviewed, without usage */
        reviewedResult?: {
            [key: string]: unknown;
        };
        /** when failed: what went wrong, for people */
        error?: string;
        /** when failed: the stable code (C2, or worker_lost / deadline_exceeded / cancelled) */
        errorCode?: "invalid_json" | "invalid_request" | "invalid_callback_url" | "schema_too_complex" | "unauthorized" | "insufficient_credits" | "spend_cap_reached" | "permission_denied" | "not_found" | "method_not_allowed" | "idempotency_key_reused" | "idempotency_key_in_use" | "first_pack_used" | "plan_required" | "payload_too_large" | "unsupported_media_type" | "unprocessable" | "document_too_complex" | "document_unreadable" | "document_encrypted" | "document_too_long" | "document_changed" | "rate_limited" | "free_decoding_exhausted" | "free_inference_exhausted" | "internal_error" | "inference_failed" | "inference_unavailable" | "service_unavailable" | "worker_lost" | "deadline_exceeded" | "cancelled";
    };
};
export type BatchWebhookPayload = {
    /** the same on every attempt (= webhook-id): deduplicate on it */
    deliveryId: string;
    event: "batch.completed";
    createdAt: string;
    livemode: boolean;
    batch: {
        batchId: string;
        /** e.g. /v1/parse */
        endpoint: string;
        /** now: the priority of async jobs, full price; 24h: cheaper by BATCH_DISCOUNT_PERCENT (default 20 %), may run at lower priority */
        window: "now" | "24h";
        status: "queued" | "running" | "completed" | "cancelled" | "expired";
        /** items by state; queued + running + the four endings = total */
        counts: {
            total: number;
            queued: number;
            running: number;
            succeeded: number;
            failed: number;
            cancelled: number;
            expired: number;
        };
        credits: {
            /** still held for the items not ended */
            held: number;
            /** charged for the items that succeeded */
            charged: number;
        };
        requestId: string;
        livemode: boolean;
        createdAt: string;
        /** when the last item ended */
        completedAt?: string;
        /** items not ended by then end expired, free */
        expiresAt: string;
    };
};
/** present when the account’s review settings sent this result to a person (C21) */
export type ReviewMark = {
    /** rev_…; GET /v1/reviews/{id} */
    id: string;
    status: "pending" | "completed";
    /** JSON pointers of the values sent to a person, e.g. /totalAmount, /lineItems/2 */
    fields: Array<string>;
};
export type JobCompletedEvent = {
    /** the same on every attempt and every resend (= webhook-id): deduplicate on it */
    id: string;
    type: "job.completed";
    createdAt: string;
    /** false: made by test-mode work (a ksk_test_ key) */
    livemode: boolean;
    data: {
        jobId: string;
        /** e.g. /v1/parse */
        endpoint: string;
        status: "queued" | "running" | "succeeded" | "failed";
        createdAt: string;
        updatedAt: string;
        startedAt?: string;
        finishedAt?: string;
        requestId: string;
        livemode: boolean;
        /** a long input answered in parts: model requests ended, of how many (absent for a job of one request) */
        progress?: {
            done: number;
            total: number;
        };
        /** when succeeded: the body the synchronous call returns, usage included */
        result?: {
            usage: {
                /** credits this call charged */
                credits: number;
                /** credits available after the charge; absent in a test job */
                balanceRemaining?: number;
                /** how this size-priced call was measured (x-price-size) */
                size?: {
                    unit: "page" | ("1k-tokens");
                    /** pages of the call's documents, or its text in 1,000-token units */
                    units: number;
                    /** units the base price (x-price) covers */
                    included: number;
                    /** credits per unit beyond included */
                    perUnit: number;
                };
                /** answered from the result cache (Service-Cache: hit): no model call, the hit price charged */
                cached?: true;
                /** false: a test key */
                livemode: boolean;
            };
            [key: string]: unknown;
        };
        /** when a person completed the review of `result` (C21, docs/api.md "Human review"): the result as reviewed, without usage */
        reviewedResult?: {
            [key: string]: unknown;
        };
        /** when failed: what went wrong, for people */
        error?: string;
        /** when failed: the stable code (C2, or worker_lost / deadline_exceeded / cancelled) */
        errorCode?: "invalid_json" | "invalid_request" | "invalid_callback_url" | "schema_too_complex" | "unauthorized" | "insufficient_credits" | "spend_cap_reached" | "permission_denied" | "not_found" | "method_not_allowed" | "idempotency_key_reused" | "idempotency_key_in_use" | "first_pack_used" | "plan_required" | "payload_too_large" | "unsupported_media_type" | "unprocessable" | "document_too_complex" | "document_unreadable" | "document_encrypted" | "document_too_long" | "document_changed" | "rate_limited" | "free_decoding_exhausted" | "free_inference_exhausted" | "internal_error" | "inference_failed" | "inference_unavailable" | "service_unavailable" | "worker_lost" | "deadline_exceeded" | "cancelled";
    };
};
export type JobFailedEvent = {
    /** the same on every attempt and every resend (= webhook-id): deduplicate on it */
    id: string;
    type: "job.failed";
    createdAt: string;
    /** false: made by test-mode work (a ksk_test_ key) */
    livemode: boolean;
    data: {
        jobId: string;
        /** e.g. /v1/parse */
        endpoint: string;
        status: "queued" | "running" | "succeeded" | "failed";
        createdAt: string;
        updatedAt: string;
        startedAt?: string;
        finishedAt?: string;
        requestId: string;
        livemode: boolean;
        /** a long input answered in parts: model requests ended, of how many (absent for a job of one request) */
        progress?: {
            done: number;
            total: number;
        };
        /** when succeeded: the body the synchronous call returns, usage included */
        result?: {
            usage: {
                /** credits this call charged */
                credits: number;
                /** credits available after the charge; absent in a test job */
                balanceRemaining?: number;
                /** how this size-priced call was measured (x-price-size) */
                size?: {
                    unit: "page" | ("1k-tokens");
                    /** pages of the call's documents, or its text in 1,000-token units */
                    units: number;
                    /** units the base price (x-price) covers */
                    included: number;
                    /** credits per unit beyond included */
                    perUnit: number;
                };
                /** answered from the result cache (Service-Cache: hit): no model call, the hit price charged */
                cached?: true;
                /** false: a test key */
                livemode: boolean;
            };
            [key: string]: unknown;
        };
        /** when a person completed the review of `result` (C21, docs/api.md "Human review"): the result as reviewed, without usage */
        reviewedResult?: {
            [key: string]: unknown;
        };
        /** when failed: what went wrong, for people */
        error?: string;
        /** when failed: the stable code (C2, or worker_lost / deadline_exceeded / cancelled) */
        errorCode?: "invalid_json" | "invalid_request" | "invalid_callback_url" | "schema_too_complex" | "unauthorized" | "insufficient_credits" | "spend_cap_reached" | "permission_denied" | "not_found" | "method_not_allowed" | "idempotency_key_reused" | "idempotency_key_in_use" | "first_pack_used" | "plan_required" | "payload_too_large" | "unsupported_media_type" | "unprocessable" | "document_too_complex" | "document_unreadable" | "document_encrypted" | "document_too_long" | "document_changed" | "rate_limited" | "free_decoding_exhausted" | "free_inference_exhausted" | "internal_error" | "inference_failed" | "inference_unavailable" | "service_unavailable" | "worker_lost" | "deadline_exceeded" | "cancelled";
    };
};
export type BatchCompletedEvent = {
    /** the same on every attempt and every resend (= webhook-id): deduplicate on it */
    id: string;
    type: "batch.completed";
    createdAt: string;
    /** false: made by test-mode work (a ksk_test_ key) */
    livemode: boolean;
    data: {
        batchId: string;
        /** e.g. /v1/parse */
        endpoint: string;
        /** now: the priority of async jobs, full price; 24h: cheaper by BATCH_DISCOUNT_PERCENT (default 20 %), may run at lower priority */
        window: "now" | "24h";
        status: "queued" | "running" | "completed" | "cancelled" | "expired";
        /** items by state; queued + running + the four endings = total */
        counts: {
            total: number;
            queued: number;
            running: number;
            succeeded: number;
            failed: number;
            cancelled: number;
            expired: number;
        };
        credits: {
            /** still held for the items not ended */
            held: number;
            /** charged for the items that succeeded */
            charged: number;
        };
        requestId: string;
        livemode: boolean;
        createdAt: string;
        /** when the last item ended */
        completedAt?: string;
        /** items not ended by then end expired, free */
        expiresAt: string;
    };
};
export type ReviewPendingEvent = {
    /** the same on every attempt and every resend (= webhook-id): deduplicate on it */
    id: string;
    type: "review.pending";
    createdAt: string;
    /** false: made by test-mode work (a ksk_test_ key) */
    livemode: boolean;
    data: {
        /** rev_…; GET /v1/reviews/{id} */
        reviewId: string;
        /** e.g. /v1/parse */
        endpoint: string;
        requestId: string;
        /** JSON pointers of the values sent to a person */
        fields: Array<string>;
        reviewer?: {
            type: "member" | "key";
            id: string;
            email?: string;
            keyPrefix?: string;
        };
    };
};
export type ReviewCompletedEvent = {
    /** the same on every attempt and every resend (= webhook-id): deduplicate on it */
    id: string;
    type: "review.completed";
    createdAt: string;
    /** false: made by test-mode work (a ksk_test_ key) */
    livemode: boolean;
    data: {
        /** rev_…; GET /v1/reviews/{id} */
        reviewId: string;
        /** e.g. /v1/parse */
        endpoint: string;
        requestId: string;
        /** JSON pointers of the values sent to a person */
        fields: Array<string>;
        reviewer?: {
            type: "member" | "key";
            id: string;
            email?: string;
            keyPrefix?: string;
        };
    };
};
export type BalanceLowEvent = {
    /** the same on every attempt and every resend (= webhook-id): deduplicate on it */
    id: string;
    type: "balance.low";
    createdAt: string;
    /** false: made by test-mode work (a ksk_test_ key) */
    livemode: boolean;
    data: {
        /** the threshold of GET /v1/alerts that was crossed */
        threshold: number;
        /** the available credits right after the crossing (balance minus holds) */
        available: number;
    };
};
export type BalanceRecoveredEvent = {
    /** the same on every attempt and every resend (= webhook-id): deduplicate on it */
    id: string;
    type: "balance.recovered";
    createdAt: string;
    /** false: made by test-mode work (a ksk_test_ key) */
    livemode: boolean;
    data: {
        /** the threshold of GET /v1/alerts that was crossed */
        threshold: number;
        /** the available credits right after the crossing (balance minus holds) */
        available: number;
    };
};
export type KeyBudgetThresholdEvent = {
    /** the same on every attempt and every resend (= webhook-id): deduplicate on it */
    id: string;
    type: "key.budget_threshold";
    createdAt: string;
    /** false: made by test-mode work (a ksk_test_ key) */
    livemode: boolean;
    data: {
        keyId: string;
        keyPrefix: string;
        percent: number;
        monthSpend: number;
        cap: number;
    };
};
export type PaymentSucceededEvent = {
    /** the same on every attempt and every resend (= webhook-id): deduplicate on it */
    id: string;
    type: "payment.succeeded";
    createdAt: string;
    /** false: made by test-mode work (a ksk_test_ key) */
    livemode: boolean;
    data: {
        kind: "pack" | "plan" | "plan_renewal" | "auto_recharge";
        pack?: string;
        plan?: string;
        credits: number;
        amountCents: number;
        /** the Stripe Checkout Session, invoice or PaymentIntent */
        reference: string;
    };
};
export type PaymentFailedEvent = {
    /** the same on every attempt and every resend (= webhook-id): deduplicate on it */
    id: string;
    type: "payment.failed";
    createdAt: string;
    /** false: made by test-mode work (a ksk_test_ key) */
    livemode: boolean;
    data: {
        kind: "auto_recharge";
        pack: string;
        amountCents: number;
        /** what the card issuer or Stripe said */
        reason: string;
    };
};
export type AutoRechargeFailedEvent = {
    /** the same on every attempt and every resend (= webhook-id): deduplicate on it */
    id: string;
    type: "auto_recharge.failed";
    createdAt: string;
    /** false: made by test-mode work (a ksk_test_ key) */
    livemode: boolean;
    data: {
        pack: string;
        reason: string;
        autoRechargeDisabled: true;
    };
};
export type PingEvent = {
    /** the same on every attempt and every resend (= webhook-id): deduplicate on it */
    id: string;
    type: "ping";
    createdAt: string;
    /** false: made by test-mode work (a ksk_test_ key) */
    livemode: boolean;
    data: {
        endpointId: string;
        message: string;
    };
};
export type JobsPage = {
    jobs: Array<{
        jobId: string;
        /** e.g. /v1/parse */
        endpoint: string;
        status: "queued" | "running" | "succeeded" | "failed";
        createdAt: string;
        updatedAt: string;
        startedAt?: string;
        finishedAt?: string;
        requestId: string;
        livemode: boolean;
        /** a long input answered in parts: model requests ended, of how many (absent for a job of one request) */
        progress?: {
            done: number;
            total: number;
        };
        /** when failed: what went wrong, for people */
        error?: string;
        /** when failed: the stable code (C2, or worker_lost / deadline_exceeded / cancelled) */
        errorCode?: "invalid_json" | "invalid_request" | "invalid_callback_url" | "schema_too_complex" | "unauthorized" | "insufficient_credits" | "spend_cap_reached" | "permission_denied" | "not_found" | "method_not_allowed" | "idempotency_key_reused" | "idempotency_key_in_use" | "first_pack_used" | "plan_required" | "payload_too_large" | "unsupported_media_type" | "unprocessable" | "document_too_complex" | "document_unreadable" | "document_encrypted" | "document_too_long" | "document_changed" | "rate_limited" | "free_decoding_exhausted" | "free_inference_exhausted" | "internal_error" | "inference_failed" | "inference_unavailable" | "service_unavailable" | "worker_lost" | "deadline_exceeded" | "cancelled";
    }>;
    /** Pass as cursor for the next (older) page; absent on the last page */
    nextCursor?: string;
};
export type Job = {
    jobId: string;
    /** e.g. /v1/parse */
    endpoint: string;
    status: "queued" | "running" | "succeeded" | "failed";
    createdAt: string;
    updatedAt: string;
    startedAt?: string;
    finishedAt?: string;
    requestId: string;
    livemode: boolean;
    /** a long input answered in parts: model requests ended, of how many (absent for a job of one request) */
    progress?: {
        done: number;
        total: number;
    };
    /** when succeeded: the body the synchronous call returns, usage included */
    result?: {
        usage: {
            /** credits this call charged */
            credits: number;
            /** credits available after the charge; absent in a test job */
            balanceRemaining?: number;
            /** how this size-priced call was measured (x-price-size) */
            size?: {
                unit: "page" | ("1k-tokens");
                /** pages of the call's documents, or its text in 1,000-token units */
                units: number;
                /** units the base price (x-price) covers */
                included: number;
                /** credits per unit beyond included */
                perUnit: number;
            };
            /** answered from the result cache (Service-Cache: hit): no model call, the hit price charged */
            cached?: true;
            /** false: a test key */
            livemode: boolean;
        };
        [key: string]: unknown;
    };
    /** when a person completed the review of `result` (C21, docs/api.md "Human review"): the result as reviewed, without usage */
    reviewedResult?: {
        [key: string]: unknown;
    };
    /** when failed: what went wrong, for people */
    error?: string;
    /** when failed: the stable code (C2, or worker_lost / deadline_exceeded / cancelled) */
    errorCode?: "invalid_json" | "invalid_request" | "invalid_callback_url" | "schema_too_complex" | "unauthorized" | "insufficient_credits" | "spend_cap_reached" | "permission_denied" | "not_found" | "method_not_allowed" | "idempotency_key_reused" | "idempotency_key_in_use" | "first_pack_used" | "plan_required" | "payload_too_large" | "unsupported_media_type" | "unprocessable" | "document_too_complex" | "document_unreadable" | "document_encrypted" | "document_too_long" | "document_changed" | "rate_limited" | "free_decoding_exhausted" | "free_inference_exhausted" | "internal_error" | "inference_failed" | "inference_unavailable" | "service_unavailable" | "worker_lost" | "deadline_exceeded" | "cancelled";
};
export type JobDeliveries = {
    deliveries: Array<{
        deliveryId: string;
        event: "job.completed" | "job.failed";
        url: string;
        status: "pending" | "delivered" | "failed" | "skipped";
        /** when skipped: why nothing was sent */
        reason?: string;
        attempts: Array<{
            attempt: number;
            at: string;
            statusCode: number | null;
            error: string | null;
            durationMs: number;
        }>;
    }>;
};
export type Account = {
    id: string;
    /** = balance */
    balanceCredits: number;
    /** US dollars per credit */
    creditUsd: 0.01;
    /** balance × creditUsd, rounded to cents */
    balanceUsd: number;
    /** credits on the account, open holds included */
    balance: number;
    /** credits held by calls and jobs in flight */
    reserved: number;
    /** balance − reserved: what the next call can spend */
    available: number;
    plan: "none" | "developer" | "team";
};
export type UsagePage = {
    entries: Array<{
        id: string;
        kind: "purchase" | "plan_grant" | "charge" | "adjustment";
        /** Credits; negative for a charge */
        amount: number;
        balanceAfter: number;
        createdAt: string;
        endpoint?: string;
        requestId?: string;
        keyId?: string;
        reference?: string;
        /** how this size-priced call was measured (x-price-size) */
        size?: {
            unit: "page" | ("1k-tokens");
            /** pages of the call's documents, or its text in 1,000-token units */
            units: number;
            /** units the base price (x-price) covers */
            included: number;
            /** credits per unit beyond included */
            perUnit: number;
        };
    }>;
    /** Pass as cursor for the next (older) page; absent on the last page */
    nextCursor?: string;
    /** Charged calls per UTC day and endpoint over from/to (default: the last 30 days) */
    daily: Array<{
        date: string;
        endpoint: string;
        calls: number;
        credits: number;
        /** of those calls, the ones answered from the result cache (at the hit price) */
        cachedCalls?: number;
    }>;
};
export type UsageSummary = {
    from: string;
    to: string;
    groupBy: string;
    groups: Array<{
        key: string;
        calls: number;
        credits: number;
        errors: number;
        /** ms; the upper bound of the latency bucket (25% wide) holding the percentile; null without calls */
        p50Ms: number | null;
        /** ms; the upper bound of the latency bucket (25% wide) holding the percentile; null without calls */
        p95Ms: number | null;
    }>;
    total: {
        calls: number;
        credits: number;
        errors: number;
    };
};
export type RequestsPage = {
    requests: Array<{
        /** the X-Request-Id of the call (req_…) */
        requestId: string;
        createdAt: string;
        method: string;
        /** the route, e.g. /v1/classify or /v1/jobs/{id} */
        endpoint: string;
        /** the HTTP status answered */
        status: number;
        /** the error code of a refusal (C2) */
        errorCode?: string;
        /** credits this request charged (an async job is charged when it succeeds) */
        credits: number;
        /** time from receiving the request to answering it */
        latencyMs: number;
        idempotencyKey?: string;
        keyId: string;
        /** the first 12 characters of the key, as the dashboard shows them */
        keyPrefix: string;
        mode: "live" | "test";
        /** false: a test key made the call */
        livemode: boolean;
        /** the message of the refusal (for people; may change) */
        errorMessage?: string;
        /** a Service-Dry-Run quote: nothing ran; liveStatus is what the call would have answered */
        dryRun: boolean;
        /** on a dry run: the status the live call would have answered (errorCode: its refusal) */
        liveStatus?: number;
        /** an Idempotency-Key's recorded answer, sent again: nothing ran, nothing was charged */
        replayed: boolean;
        /** on an endpoint with a result cache: its Service-Cache answer (hit: the stored result, the hit price charged) */
        cache?: "hit" | "miss" | "bypass";
        /** on a 202: the job it accepted (GET /v1/jobs/{id}) */
        jobId?: string;
        /** the tags the call sent in Service-Metadata */
        metadata?: {
            [key: string]: string;
        };
    }>;
    /** Pass as cursor for the next (older) page; absent on the last page */
    nextCursor?: string;
};
export type RequestLogEntry = {
    /** the X-Request-Id of the call (req_…) */
    requestId: string;
    createdAt: string;
    method: string;
    /** the route, e.g. /v1/classify or /v1/jobs/{id} */
    endpoint: string;
    /** the HTTP status answered */
    status: number;
    /** the error code of a refusal (C2) */
    errorCode?: string;
    /** credits this request charged (an async job is charged when it succeeds) */
    credits: number;
    /** time from receiving the request to answering it */
    latencyMs: number;
    idempotencyKey?: string;
    keyId: string;
    /** the first 12 characters of the key, as the dashboard shows them */
    keyPrefix: string;
    mode: "live" | "test";
    /** false: a test key made the call */
    livemode: boolean;
    /** the message of the refusal (for people; may change) */
    errorMessage?: string;
    /** a Service-Dry-Run quote: nothing ran; liveStatus is what the call would have answered */
    dryRun: boolean;
    /** on a dry run: the status the live call would have answered (errorCode: its refusal) */
    liveStatus?: number;
    /** an Idempotency-Key's recorded answer, sent again: nothing ran, nothing was charged */
    replayed: boolean;
    /** on an endpoint with a result cache: its Service-Cache answer (hit: the stored result, the hit price charged) */
    cache?: "hit" | "miss" | "bypass";
    /** on a 202: the job it accepted (GET /v1/jobs/{id}) */
    jobId?: string;
    /** the tags the call sent in Service-Metadata */
    metadata?: {
        [key: string]: string;
    };
};
/** The batch is at `Location` (GET /v1/batches/{id}) */
export type BatchAccepted = {
    batchId: string;
    status: "queued";
    /** items by state; queued + running + the four endings = total */
    counts: {
        total: number;
        queued: number;
        running: number;
        succeeded: number;
        failed: number;
        cancelled: number;
        expired: number;
    };
    credits: {
        /** the sum of the items’ prices, held until each item ends */
        held: number;
    };
    requestId: string;
    livemode: boolean;
};
export type BatchQuote = {
    dryRun: true;
    /** the endpoint the items call, e.g. /v1/parse */
    endpoint: string;
    /** the status the batch would answer now (202, or 402 …) */
    liveStatus: number;
    items: number;
    /** the sum of the items’ prices after any discount, if every item succeeds (0 when refused, or a test key) */
    wouldCharge: number;
    /** the sum of the items’ prices after any discount: what acceptance would hold */
    price: number;
    /** credits available now (balance minus open holds) */
    balance: number;
    error?: {
        code: string;
        message: string;
    };
};
export type BatchRequest = {
    /** the endpoint every item calls, e.g. parse or /v1/parse */
    endpoint: string;
    items: Array<{
        /** yours, unique within the batch; names the item in the results */
        customId: string;
        /** what POST /v1/<endpoint> takes, without async and callbackUrl */
        body: {
            [key: string]: unknown;
        };
    }>;
    /** now: the priority of async jobs, full price; 24h: cheaper by BATCH_DISCOUNT_PERCENT (default 20 %), may run at lower priority */
    window?: "now" | "24h";
    /** gets the batch object once, when every item has ended */
    callbackUrl?: string;
};
export type BatchesPage = {
    batches: Array<{
        batchId: string;
        /** e.g. /v1/parse */
        endpoint: string;
        /** now: the priority of async jobs, full price; 24h: cheaper by BATCH_DISCOUNT_PERCENT (default 20 %), may run at lower priority */
        window: "now" | "24h";
        status: "queued" | "running" | "completed" | "cancelled" | "expired";
        /** items by state; queued + running + the four endings = total */
        counts: {
            total: number;
            queued: number;
            running: number;
            succeeded: number;
            failed: number;
            cancelled: number;
            expired: number;
        };
        credits: {
            /** still held for the items not ended */
            held: number;
            /** charged for the items that succeeded */
            charged: number;
        };
        requestId: string;
        livemode: boolean;
        createdAt: string;
        /** when the last item ended */
        completedAt?: string;
        /** items not ended by then end expired, free */
        expiresAt: string;
    }>;
    /** Pass as cursor for the next (older) page; absent on the last page */
    nextCursor?: string;
};
export type Batch = {
    batchId: string;
    /** e.g. /v1/parse */
    endpoint: string;
    /** now: the priority of async jobs, full price; 24h: cheaper by BATCH_DISCOUNT_PERCENT (default 20 %), may run at lower priority */
    window: "now" | "24h";
    status: "queued" | "running" | "completed" | "cancelled" | "expired";
    /** items by state; queued + running + the four endings = total */
    counts: {
        total: number;
        queued: number;
        running: number;
        succeeded: number;
        failed: number;
        cancelled: number;
        expired: number;
    };
    credits: {
        /** still held for the items not ended */
        held: number;
        /** charged for the items that succeeded */
        charged: number;
    };
    requestId: string;
    livemode: boolean;
    createdAt: string;
    /** when the last item ended */
    completedAt?: string;
    /** items not ended by then end expired, free */
    expiresAt: string;
};
export type BatchResultLine = {
    customId: string;
    status: "queued" | "running" | "succeeded" | "failed" | "cancelled" | "expired";
    /** succeeded: the body the sync call returns, usage included */
    result?: {
        [key: string]: unknown;
    };
    /** failed, cancelled, expired: why */
    error?: {
        code: string;
        message: string;
    };
};
export type CacheEmptied = {
    /** cached results removed */
    results: number;
    /** the mode whose results were removed: the key’s */
    livemode: boolean;
};
export type KeyList = {
    keys: Array<{
        id: string;
        /** the first 12 characters, as the dashboard and the request log show them */
        prefix: string;
        name: string | null;
        mode: "live" | "test";
        /** all: everything, account management included; call: capabilities and reads; read: reads only */
        permissions: "all" | "call" | "read";
        capabilities: Array<string> | null;
        monthlySpendCap: number | null;
        createdAt: string;
        revokedAt: string | null;
    }>;
};
export type ApiKeyCreated = {
    id: string;
    /** the first 12 characters, as the dashboard and the request log show them */
    prefix: string;
    name: string | null;
    mode: "live" | "test";
    /** all: everything, account management included; call: capabilities and reads; read: reads only */
    permissions: "all" | "call" | "read";
    capabilities: Array<string> | null;
    monthlySpendCap: number | null;
    createdAt: string;
    revokedAt: string | null;
    /** shown once */
    key: string;
};
export type KeyInput = {
    name?: string;
    mode?: "live" | "test";
    /** all: everything, account management included; call: capabilities and reads; read: reads only */
    permissions?: "all" | "call" | "read";
    /** the only capabilities the key may call; null or absent: every one */
    capabilities?: Array<string> | null;
    /** credits per calendar month (UTC); the Team plan */
    monthlySpendCap?: number | null;
};
export type ApiKey = {
    id: string;
    /** the first 12 characters, as the dashboard and the request log show them */
    prefix: string;
    name: string | null;
    mode: "live" | "test";
    /** all: everything, account management included; call: capabilities and reads; read: reads only */
    permissions: "all" | "call" | "read";
    capabilities: Array<string> | null;
    monthlySpendCap: number | null;
    createdAt: string;
    revokedAt: string | null;
};
export type KeyPatch = {
    name?: string | null;
    /** all: everything, account management included; call: capabilities and reads; read: reads only */
    permissions?: "all" | "call" | "read";
    /** the only capabilities the key may call; null or absent: every one */
    capabilities?: Array<string> | null;
    /** credits per calendar month (UTC); the Team plan */
    monthlySpendCap?: number | null;
};
export type KeyRevoked = {
    id: string;
    revokedAt: string;
};
export type MemberList = {
    members: Array<{
        id: string;
        email: string;
        role: "owner" | "admin" | "developer" | "billing" | "viewer";
        createdAt: string;
        lastSignInAt: string | null;
    }>;
};
export type Member = {
    id: string;
    email: string;
    role: "owner" | "admin" | "developer" | "billing" | "viewer";
    createdAt: string;
    lastSignInAt: string | null;
};
export type MemberInput = {
    email: string;
    role: "owner" | "admin" | "developer" | "billing" | "viewer";
};
export type RoleInput = {
    role: "owner" | "admin" | "developer" | "billing" | "viewer";
};
export type InvitationList = {
    invitations: Array<{
        id: string;
        email: string;
        role: "owner" | "admin" | "developer" | "billing" | "viewer";
        createdAt: string;
        expiresAt: string;
        status: "pending" | "expired";
    }>;
};
export type Invitation = {
    id: string;
    email: string;
    role: "owner" | "admin" | "developer" | "billing" | "viewer";
    createdAt: string;
    expiresAt: string;
    status: "pending" | "expired";
};
export type AuditPage = {
    entries: Array<{
        /** increasing with time; pass nextCursor to page */
        id: string;
        at: string;
        actor: {
            type: "member" | "key" | "operator" | "system";
            /** the member or key id */
            id?: string;
            /** a member’s email */
            email?: string;
            /** a key’s first 12 characters */
            keyPrefix?: string;
        };
        /** <thing>.<what happened>, e.g. key.created, member.role_changed, sign_in.failed */
        action: string;
        /** what was changed */
        target: {
            type: string;
            id?: string;
        };
        /** the X-Request-Id of the request that made the change */
        requestId?: string;
        ip?: string;
        /** what changed: before/after values, reasons; never a secret */
        details: {
            [key: string]: unknown;
        };
    }>;
    /** Pass as cursor for the next (older) page; absent on the last page */
    nextCursor?: string;
};
export type SsoSettings = {
    issuer: string;
    clientId: string;
    /** the secret itself is never returned */
    clientSecretSet: true;
    domains: Array<string>;
    /** the role of people who arrive through the provider */
    defaultRole: "admin" | "developer" | "billing" | "viewer";
    enforced: boolean;
    /** register this as the client’s redirect URI at the provider */
    redirectUri: string;
    updatedAt: string;
};
export type SsoInput = {
    /** the provider’s issuer; its /.well-known/openid-configuration is read */
    issuer: string;
    clientId: string;
    /** write-only; encrypted at rest */
    clientSecret?: string;
    domains: Array<string>;
    /** the role of people who arrive through the provider */
    defaultRole: "admin" | "developer" | "billing" | "viewer";
    /** refuse sign-in links for these domains: their people sign in through the provider only */
    enforced: boolean;
};
export type SsoRemoved = {
    removed: true;
};
export type WebhookEndpointList = {
    endpoints: Array<{
        id: string;
        url: string;
        /** null: every type */
        events: Array<string> | null;
        description: string | null;
        enabled: boolean;
        createdAt: string;
        secretRotatedAt: string | null;
    }>;
};
export type WebhookEndpointCreated = {
    id: string;
    url: string;
    /** null: every type */
    events: Array<string> | null;
    description: string | null;
    enabled: boolean;
    createdAt: string;
    secretRotatedAt: string | null;
    /** shown once: verify webhook-signature with it */
    secret: string;
};
export type WebhookEndpointInput = {
    /** https and public (C8), checked at every attempt too */
    url: string;
    events?: Array<"job.completed" | "job.failed" | "batch.completed" | "review.pending" | "review.completed" | "balance.low" | "balance.recovered" | "key.budget_threshold" | "payment.succeeded" | "payment.failed" | "auto_recharge.failed" | "ping" | ("job.*") | ("batch.*") | ("review.*") | ("balance.*") | ("key.*") | ("payment.*") | ("auto_recharge.*")> | null;
    description?: string;
};
export type WebhookEndpoint = {
    id: string;
    url: string;
    /** null: every type */
    events: Array<string> | null;
    description: string | null;
    enabled: boolean;
    createdAt: string;
    secretRotatedAt: string | null;
};
export type WebhookEndpointPatch = {
    /** https and public (C8), checked at every attempt too */
    url?: string;
    events?: Array<"job.completed" | "job.failed" | "batch.completed" | "review.pending" | "review.completed" | "balance.low" | "balance.recovered" | "key.budget_threshold" | "payment.succeeded" | "payment.failed" | "auto_recharge.failed" | "ping" | ("job.*") | ("batch.*") | ("review.*") | ("balance.*") | ("key.*") | ("payment.*") | ("auto_recharge.*")> | null;
    enabled?: boolean;
    description?: string | null;
};
export type WebhookEndpointSecret = {
    /** shown once: verify webhook-signature with it */
    secret: string;
};
export type PingQueued = {
    eventId: string;
};
export type EventPage = {
    events: Array<{
        id: string;
        type: "job.completed" | "job.failed" | "batch.completed" | "review.pending" | "review.completed" | "balance.low" | "balance.recovered" | "key.budget_threshold" | "payment.succeeded" | "payment.failed" | "auto_recharge.failed" | "ping";
        createdAt: string;
        livemode: boolean;
        /** the type’s data (see the webhooks of this document) */
        data: {
            [key: string]: unknown;
        };
    }>;
    nextCursor?: string;
};
export type EventWithDeliveries = {
    id: string;
    type: "job.completed" | "job.failed" | "batch.completed" | "review.pending" | "review.completed" | "balance.low" | "balance.recovered" | "key.budget_threshold" | "payment.succeeded" | "payment.failed" | "auto_recharge.failed" | "ping";
    createdAt: string;
    livemode: boolean;
    /** the type’s data (see the webhooks of this document) */
    data: {
        [key: string]: unknown;
    };
    deliveries: Array<{
        /** null: no endpoint (skipped), or the endpoint was deleted */
        endpointId: string | null;
        url: string | null;
        status: "pending" | "delivered" | "failed" | "skipped";
        /** why it was skipped or failed without an answer */
        reason?: string;
        attempts: number;
        lastStatusCode?: number;
        lastError?: string;
        nextAttemptAt?: string;
        createdAt: string;
        /** every attempt, oldest first */
        attemptLog: Array<{
            attempt: number;
            at: string;
            statusCode: number | null;
            error: string | null;
            durationMs: number;
        }>;
    }>;
};
export type EventResent = {
    id: string;
    /** deliveries queued */
    deliveries: number;
};
export type ResendInput = {
    /** absent: every endpoint subscribed now */
    endpointId?: string;
};
export type AlertSettings = {
    /** balance.low when the available credits go below one of these */
    balanceThresholds: Array<number>;
    /** key.budget_threshold when a capped key’s month spend reaches this percent of its cap */
    keyBudgetPercents: Array<number>;
    /** the account’s owners get a mail of each balance and budget alert too */
    email: boolean;
};
export type AlertInput = {
    /** balance.low when the available credits go below one of these */
    balanceThresholds?: Array<number>;
    /** key.budget_threshold when a capped key’s month spend reaches this percent of its cap */
    keyBudgetPercents?: Array<number>;
    /** the account’s owners get a mail of each balance and budget alert too */
    email?: boolean;
};
export type ReviewSettings = {
    /** off: no reviews; ungrounded: values without evidence or that code found wrong; below: values under `threshold` */
    mode: "off" | "ungrounded" | "below";
    threshold?: number;
    endpoints?: Array<string>;
    evalConsent: boolean;
    /** absent: never set (the default, off) */
    updatedAt?: string;
};
export type ReviewSettingsInput = {
    /** off: no reviews; ungrounded: values without evidence or that code found wrong; below: values under `threshold` */
    mode: "off" | "ungrounded" | "below";
    /** with mode "below": the confidence under which a value is reviewed */
    threshold?: number;
    /** only these extracting endpoints; left out: all of them */
    endpoints?: Array<string>;
    /** completed reviews may be exported as evaluation fixtures (npm run eval); default false */
    evalConsent?: boolean;
};
export type ReviewsPage = {
    reviews: Array<{
        id: string;
        status: "pending" | "completed";
        /** e.g. /v1/parse */
        endpoint: string;
        requestId: string;
        /** the async job whose result this is */
        jobId?: string;
        fields: Array<string>;
        livemode: boolean;
        createdAt: string;
        completedAt?: string;
        reviewer?: {
            type: "member" | "key";
            id: string;
            email?: string;
            keyPrefix?: string;
        };
    }>;
    /** Pass as cursor for the next (older) page; absent on the last page */
    nextCursor?: string;
};
export type Review = {
    id: string;
    status: "pending" | "completed";
    /** e.g. /v1/parse */
    endpoint: string;
    requestId: string;
    /** the async job whose result this is */
    jobId?: string;
    fields: Array<string>;
    livemode: boolean;
    createdAt: string;
    completedAt?: string;
    reviewer?: {
        type: "member" | "key";
        id: string;
        email?: string;
        keyPrefix?: string;
    };
    /** the result as the call answered it (without usage) */
    result: {
        [key: string]: unknown;
    };
    flagged: Array<{
        path: string;
        /** the value as answered (for a list item: the item without its evidence) */
        value: unknown;
        evidence: {
            page: number | null;
            quote: string;
            [key: string]: unknown;
        } | null;
        grounded: boolean;
        confidence: number;
        /** null when code found no quote: the value is not in the document as quoted; read `pages` */
        context: {
            page: number | null;
            /** the page text around the quote */
            text: string;
            /** where the quote starts in `text` */
            quoteStart: number;
            quoteEnd: number;
        } | null;
    }>;
    /** the document’s text, page by page (empty for an image) */
    pages: Array<string>;
    decisions?: Array<{
        /** one of the review’s fields */
        path: string;
        action: "accept" | "correct";
        /** with correct: the right value (for a list item, an object of the item’s properties or its value) */
        value?: unknown;
    }>;
    /** when completed: the result as reviewed, valid against the endpoint’s schema */
    reviewedResult?: {
        [key: string]: unknown;
    };
};
export type CompleteReviewInput = {
    fields: Array<{
        /** one of the review’s fields */
        path: string;
        action: "accept" | "correct";
        /** with correct: the right value (for a list item, an object of the item’s properties or its value) */
        value?: unknown;
    }>;
};
/** POST /v1/categorize request */
export type CategorizeRequest = {
    items: Array<string>;
    taxonomy: Array<string>;
    multi?: boolean;
    instructions?: string;
};
/** POST /v1/categorize result (with the usage of the call) */
export type CategorizeResponse = {
    results: Array<{
        index: number;
        category: string;
        categories?: Array<string>;
        confidence: number;
    }>;
    usage: Usage;
};
/** POST /v1/chargeback request */
export type ChargebackRequest = {
    reason: string;
    transaction: {
        amount?: number;
        currency?: string;
        date?: string;
        descriptor?: string;
    };
    evidence?: Array<string>;
    context?: string;
    network?: "visa" | "mastercard" | "amex" | "discover";
};
/** POST /v1/chargeback result (with the usage of the call) */
export type ChargebackResponse = {
    reasonCategory: "fraud" | "authorization" | "processing_error" | "consumer_dispute";
    /** one of the network's reason codes (the one the reason states, else the model's if the network has it), or null */
    reasonCode?: string;
    reasonDescription?: string;
    network?: "visa" | "mastercard" | "amex" | "discover";
    recommendedAction: "fight" | "accept";
    narrative: string;
    evidenceChecklist: Array<{
        item: string;
        /** true only when an item of the caller's evidence backs the entry (listed in matchedEvidence) */
        have: boolean;
        matchedEvidence?: Array<{
            evidenceIndex: number;
            quote: string;
        }>;
    }>;
    winLikelihood: number;
    rationale: string;
    usage: Usage;
};
/** POST /v1/classify request */
export type ClassifyRequest = {
    text: string;
    labels: Array<string>;
    multi?: boolean;
    instructions?: string;
};
/** POST /v1/classify result (with the usage of the call) */
export type ClassifyResponse = {
    label: string;
    labels?: Array<string>;
    confidence: number;
    rationale: string;
    warnings?: Array<string>;
    usage: Usage;
};
/** a: the earlier version, b: the later version; each exactly one of file, fileUrl, text */
export type CompareRequest = {
    a: {
        /** e.g. "1-3,7" */
        pages?: string;
    } & ({
        file: {
            /** base64-encoded file bytes */
            data: string;
            /** media type of the file (a hint: the bytes decide) */
            mimeType: string;
        };
        fileUrl?: never;
        text?: never;
    } | {
        file?: never;
        fileUrl: string;
        text?: never;
    } | {
        file?: never;
        fileUrl?: never;
        text: string;
    });
    b: {
        /** e.g. "1-3,7" */
        pages?: string;
    } & ({
        file: {
            /** base64-encoded file bytes */
            data: string;
            /** media type of the file (a hint: the bytes decide) */
            mimeType: string;
        };
        fileUrl?: never;
        text?: never;
    } | {
        file?: never;
        fileUrl: string;
        text?: never;
    } | {
        file?: never;
        fileUrl?: never;
        text: string;
    });
    async?: boolean;
    callbackUrl?: string;
};
/** POST /v1/compare result (with the usage of the call) */
export type CompareResponse = {
    changes: Array<{
        section: string;
        change: "added" | "removed" | "modified";
        /** text of a; null when the change is "added" */
        before?: string;
        /** text of b; null when the change is "removed" */
        after?: string;
        materiality: "low" | "medium" | "high";
        note: string;
    }>;
    /** changes.length, computed by code */
    changeCount: number;
    summary: string;
    riskNotes: Array<string>;
    /** what code found wrong with the model's changes (e.g. a quote not found in the document) */
    warnings?: Array<string>;
    usage: Usage;
};
/** POST /v1/contract request */
export type ContractRequest = {
    /** e.g. "1-3,7" */
    pages?: string;
    async?: boolean;
    callbackUrl?: string;
} & ({
    file: {
        /** base64-encoded file bytes */
        data: string;
        /** media type of the file (a hint: the bytes decide) */
        mimeType: string;
    };
    fileUrl?: never;
    text?: never;
} | {
    file?: never;
    fileUrl: string;
    text?: never;
} | {
    file?: never;
    fileUrl?: never;
    text: string;
});
/** POST /v1/contract result (with the usage of the call) */
export type ContractResponse = {
    /** lower case, e.g. "services agreement", "nda", "lease" */
    contractType: string;
    parties: Array<{
        name: string;
        role: string;
        /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
        evidence: {
            /** the page where code found the quote (never the model's claim); null for input without pages */
            page: number | null;
            /** the document's own text of the passage */
            quote: string;
        } | {
            source: "review";
            action: "accept" | "correct";
            /** the member (dashboard) or key (API) that completed the review */
            reviewer: {
                type: "member" | "key";
                id: string;
                email?: string;
                keyPrefix?: string;
            };
            /** rev_… */
            reviewId: string;
            reviewedAt: string;
        } | null;
        /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
        grounded: boolean;
        /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
        confidence: number;
    }>;
    effectiveDate?: string;
    term?: string;
    /** null when the contract says nothing about renewal */
    renewal?: {
        autoRenews: boolean;
        noticePeriod?: string;
    };
    governingLaw?: string;
    obligations: Array<string>;
    riskFlags: Array<{
        clause: string;
        severity: "low" | "medium" | "high";
        reason: string;
        /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
        evidence: {
            /** the page where code found the quote (never the model's claim); null for input without pages */
            page: number | null;
            /** the document's own text of the passage */
            quote: string;
        } | {
            source: "review";
            action: "accept" | "correct";
            /** the member (dashboard) or key (API) that completed the review */
            reviewer: {
                type: "member" | "key";
                id: string;
                email?: string;
                keyPrefix?: string;
            };
            /** rev_… */
            reviewId: string;
            reviewedAt: string;
        } | null;
        /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
        grounded: boolean;
        /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
        confidence: number;
    }>;
    /** evidence, grounded and confidence of each single-valued field present in the result (docs/api.md "Evidence and confidence") */
    grounding: {
        effectiveDate?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        term?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        governingLaw?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        "renewal.noticePeriod"?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
    };
    /** what code found wrong with the model's answer */
    warnings?: Array<string>;
    review?: ReviewMark;
    usage: Usage;
};
/** POST /v1/describe request */
export type DescribeRequest = {
    purpose?: "alt" | "caption" | "product" | "detailed";
    maxTags?: number;
    /** where the image is used, to focus the description */
    context?: string;
} & ({
    imageUrl: string;
    image?: never;
} | {
    imageUrl?: never;
    image: {
        /** base64-encoded file bytes */
        data: string;
        /** media type of the file (a hint: the bytes decide) */
        mimeType: string;
    };
});
/** POST /v1/describe result (with the usage of the call) */
export type DescribeResponse = {
    /** one line, for the alt attribute */
    altText: string;
    caption: string;
    /** present when purpose is detailed or product */
    detailed?: string;
    /** lower-case, unique, at most maxTags */
    tags: Array<string>;
    /** text visible in the image; absent when there is none */
    embeddedText?: string;
    usage: Usage;
};
/** POST /v1/dunning request */
export type DunningRequest = {
    invoice: {
        number?: string;
        amount: number;
        currency?: string;
        dueDate?: string;
        daysOverdue?: number;
    };
    customer: {
        name: string;
        history?: string;
    };
    tone?: "friendly" | "firm" | "final";
    channel?: "email" | "sms";
    steps?: number;
    senderName?: string;
    paymentUrl?: string;
};
/** POST /v1/dunning result (with the usage of the call) */
export type DunningResponse = {
    /** exactly `steps` steps, days strictly increasing */
    sequence: Array<{
        /** days after the call; 0 = today */
        day: number;
        date?: string;
        channel: "email" | "sms";
        subject?: string;
        message: string;
    }>;
    escalationAdvice: string;
    usage: Usage;
};
/** POST /v1/enrich request */
export type EnrichRequest = {
    domain: string;
    email?: never;
} | {
    domain?: never;
    email: string;
};
/** POST /v1/enrich result (with the usage of the call) */
export type EnrichResponse = {
    name: string;
    /** The normalised domain, computed by code from the request. */
    domain: string;
    description?: string;
    industry?: string;
    headquarters?: string;
    employeeRange?: "1-10" | "11-50" | "51-200" | "201-500" | "501-1000" | "1001-5000" | "5001-10000" | "10001+";
    founded?: number;
    links: {
        website?: string;
        linkedin?: string;
        twitter?: string;
        github?: string;
        facebook?: string;
        instagram?: string;
        youtube?: string;
        crunchbase?: string;
    };
    /** True only when web evidence was used: the homepage was fetched and had text, or the web search returned sources. Set by code. */
    grounded: boolean;
    sources?: Array<{
        url: string;
        title: string;
    }>;
    usage: Usage;
};
/** POST /v1/extract request */
export type ExtractRequest = {
    text: string;
    fields: Array<string>;
    instructions?: string;
};
/** POST /v1/extract result (with the usage of the call) */
export type ExtractResponse = {
    results: Array<{
        field: string;
        /** null: the text does not state this field */
        value: string | null;
        /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
        evidence: {
            /** the page where code found the quote (never the model's claim); null for input without pages */
            page: number | null;
            /** the document's own text of the passage */
            quote: string;
        } | {
            source: "review";
            action: "accept" | "correct";
            /** the member (dashboard) or key (API) that completed the review */
            reviewer: {
                type: "member" | "key";
                id: string;
                email?: string;
                keyPrefix?: string;
            };
            /** rev_… */
            reviewId: string;
            reviewedAt: string;
        } | null;
        /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
        grounded: boolean;
        /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
        confidence: number;
    }>;
    review?: ReviewMark;
    usage: Usage;
};
/** POST /v1/fraud-flag request */
export type FraudFlagRequest = {
    order: {
        [key: string]: unknown;
    };
    context?: string;
};
/** POST /v1/fraud-flag result (with the usage of the call) */
export type FraudFlagResponse = {
    riskScore: number;
    /** from riskScore by code: below 0.34 low, 0.34 to below 0.67 medium, 0.67 and above high */
    riskLevel: "low" | "medium" | "high";
    signals: Array<{
        signal: string;
        weight: "low" | "medium" | "high";
        note: string;
    }>;
    recommendedChecks: Array<string>;
    /** from riskLevel by code: low allow, medium review, high block */
    recommendation: "allow" | "review" | "block";
    usage: Usage;
};
/** POST /v1/image request */
export type ImageRequest = {
    prompt: string;
    /** e.g. "watercolor", "flat vector illustration" */
    style?: string;
    aspectRatio?: ("1:1") | ("16:9") | ("9:16") | ("4:3") | ("3:4");
};
/** POST /v1/image result (with the usage of the call) */
export type ImageResponse = {
    /** base64-encoded image bytes */
    image: string;
    /** taken from the bytes, not from the provider */
    mimeType: string;
    revisedPrompt?: string;
    /** the size requested from the provider */
    size: string;
    /** the aspect ratio produced (of width:height measured, else of size), reduced: "3:2" when 16:9 or 4:3 was asked for */
    aspectRatio: string;
    /** measured from the image header */
    width?: number;
    height?: number;
    usage: Usage;
};
/** POST /v1/invoice request */
export type InvoiceRequest = {
    /** e.g. "1-3,7" */
    pages?: string;
    async?: boolean;
    callbackUrl?: string;
} & ({
    file: {
        /** base64-encoded file bytes */
        data: string;
        /** media type of the file (a hint: the bytes decide) */
        mimeType: string;
    };
    fileUrl?: never;
    text?: never;
} | {
    file?: never;
    fileUrl: string;
    text?: never;
} | {
    file?: never;
    fileUrl?: never;
    text: string;
});
/** POST /v1/invoice result (with the usage of the call) */
export type InvoiceResponse = {
    vendor: {
        name: string;
        address?: string;
        taxId?: string;
    };
    customer?: string;
    invoiceNumber?: string;
    poNumber?: string;
    /** YYYY-MM-DD */
    issueDate?: string;
    /** YYYY-MM-DD */
    dueDate?: string;
    /** ISO 4217 code */
    currency?: string;
    subtotal?: number;
    tax?: number;
    total?: number;
    paymentTerms?: string;
    lineItems: Array<{
        description: string;
        quantity?: number;
        unitPrice?: number;
        amount: number;
        /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
        evidence: {
            /** the page where code found the quote (never the model's claim); null for input without pages */
            page: number | null;
            /** the document's own text of the passage */
            quote: string;
        } | {
            source: "review";
            action: "accept" | "correct";
            /** the member (dashboard) or key (API) that completed the review */
            reviewer: {
                type: "member" | "key";
                id: string;
                email?: string;
                keyPrefix?: string;
            };
            /** rev_… */
            reviewId: string;
            reviewedAt: string;
        } | null;
        /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
        grounded: boolean;
        /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
        confidence: number;
    }>;
    /** evidence, grounded and confidence of each single-valued field present in the result (docs/api.md "Evidence and confidence") */
    grounding: {
        "vendor.name"?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        "vendor.address"?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        "vendor.taxId"?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        customer?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        invoiceNumber?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        poNumber?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        issueDate?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        dueDate?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        subtotal?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        tax?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        total?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        paymentTerms?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
    };
    /** What does not add up or could not be read; checked by code, never silently fixed */
    warnings?: Array<string>;
    review?: ReviewMark;
    usage: Usage;
};
/** POST /v1/match request */
export type MatchRequest = {
    a: Array<{
        [key: string]: (string | number | boolean | null);
    }>;
    b: Array<{
        [key: string]: (string | number | boolean | null);
    }>;
    keys?: Array<string>;
    minConfidence?: number;
    instructions?: string;
};
/** POST /v1/match result (with the usage of the call) */
export type MatchResponse = {
    matches: Array<{
        aIndex: number;
        bIndex: number;
        confidence: number;
        reason?: string;
    }>;
    unmatchedA: Array<number>;
    unmatchedB: Array<number>;
    usage: Usage;
};
/** POST /v1/memory request */
export type MemoryRequest = {
    namespace?: string;
} & ({
    op: "store";
    content: string;
    query?: never;
    limit?: never;
    filter?: never;
    minScore?: never;
    id?: never;
    /** at most 32 keys, 16384 bytes as JSON */
    metadata?: {
        [key: string]: ((string | number | boolean | null) | Array<string | number | boolean>);
    };
} | {
    op: "search";
    content?: never;
    query: string;
    limit?: number;
    /** only memories whose metadata contains these key/values (JSON containment) */
    filter?: {
        [key: string]: ((string | number | boolean | null) | Array<string | number | boolean>);
    };
    minScore?: number;
    id?: never;
    metadata?: never;
} | {
    op: "forget";
    content?: never;
    query?: never;
    limit?: never;
    filter?: never;
    minScore?: never;
    id?: string;
    metadata?: never;
});
/** POST /v1/memory result (with the usage of the call) */
export type MemoryResponse = {
    op: "store" | "search" | "forget";
    namespace: string;
    /** store: the new memory; forget: the id asked for */
    id?: string;
    results?: Array<{
        id: string;
        content: string;
        score: number;
        metadata: {
            [key: string]: unknown;
        };
        createdAt: string;
    }>;
    /** search: how results were ranked */
    ranking?: "embedding" | "fulltext";
    deleted?: number;
    usage: Usage;
};
/** POST /v1/minutes request */
export type MinutesRequest = {
    transcript: string;
    attendees?: Array<string>;
    /** YYYY-MM-DD; relative deadlines ("by Friday") are resolved against it */
    meetingDate?: string;
};
/** POST /v1/minutes result (with the usage of the call) */
export type MinutesResponse = {
    title: string;
    summary: string;
    decisions: Array<string>;
    actionItems: Array<{
        task: string;
        owner?: string;
        due?: string;
    }>;
    openQuestions: Array<string>;
    warnings?: Array<string>;
    usage: Usage;
};
/** POST /v1/moderate request */
export type ModerateRequest = {
    policy?: string;
    /** The category names to report against; when given, every returned category is one of them */
    categories?: Array<string>;
} & ({
    text: string;
    image?: never;
    imageUrl?: never;
} | {
    text?: never;
    image: {
        /** base64-encoded file bytes */
        data: string;
        /** media type of the file (a hint: the bytes decide) */
        mimeType: string;
    };
    imageUrl?: never;
} | {
    text?: never;
    image?: never;
    imageUrl: string;
});
/** POST /v1/moderate result (with the usage of the call) */
export type ModerateResponse = {
    flagged: boolean;
    decision: "allow" | "review" | "block";
    categories: Array<{
        category: string;
        severity: "low" | "medium" | "high";
        excerpt?: string;
    }>;
    rationale: string;
    usage: Usage;
};
/** POST /v1/normalize request */
export type NormalizeRequest = {
    /** Flat records: at most 50 fields each, values string (≤ 2,000 chars), number, boolean or null. The answer has the same records in the same order. */
    records: Array<{
        [key: string]: (string | number | boolean | null);
    }>;
    /** Only these fields may change (and may be added where missing). Without it, only fields a record already has may change. */
    fields?: Array<string>;
    /** Normalisation rules in your words (formats, casing, code lists). */
    instructions?: string;
};
/** POST /v1/normalize result (with the usage of the call) */
export type NormalizeResponse = {
    records: Array<{
        [key: string]: (string | number | boolean | null);
    }>;
    changes: Array<{
        index: number;
        field: string;
        /** Absent when the field did not exist in the input record. */
        from?: string | number | boolean | null;
        to: string | number | boolean | null;
        reason?: string;
    }>;
    usage: Usage;
};
/** POST /v1/outreach request */
export type OutreachRequest = {
    lead: string | {
        [key: string]: ((string | number | boolean | null) | Array<string | number | boolean | null> | {
            [key: string]: (string | number | boolean | null);
        });
    };
    product: string | {
        [key: string]: ((string | number | boolean | null) | Array<string | number | boolean | null> | {
            [key: string]: (string | number | boolean | null);
        });
    };
    sender?: {
        name?: string;
        role?: string;
        company?: string;
    };
    channel?: "email" | "linkedin";
    steps?: number;
    goal?: string;
    instructions?: string;
};
/** POST /v1/outreach result (with the usage of the call) */
export type OutreachResponse = {
    sequence: Array<{
        day: number;
        channel: "email" | "linkedin";
        subject?: string;
        message: string;
    }>;
    personalizationPoints: Array<string>;
    usage: Usage;
};
/** POST /v1/parse request */
export type ParseRequest = {
    /** e.g. "1-3,7" */
    pages?: string;
    /** A hint (e.g. "invoice", "eob"); the document decides */
    docType?: string;
    async?: boolean;
    callbackUrl?: string;
} & ({
    file: {
        /** base64-encoded file bytes */
        data: string;
        /** media type of the file (a hint: the bytes decide) */
        mimeType: string;
    };
    fileUrl?: never;
    text?: never;
} | {
    file?: never;
    fileUrl: string;
    text?: never;
} | {
    file?: never;
    fileUrl?: never;
    text: string;
});
/** POST /v1/parse result (with the usage of the call) */
export type ParseResponse = {
    /** lower_snake_case: invoice, receipt, eob, era, coi, bank_statement, ... */
    docType: string;
    /** Primary party (vendor, payer or carrier) */
    party?: string;
    documentNumber?: string;
    /** Primary date, YYYY-MM-DD */
    date?: string;
    totalAmount?: number;
    /** ISO 4217 code of totalAmount */
    currency?: string;
    lineItems?: Array<{
        description: string;
        amount: number;
        /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
        evidence: {
            /** the page where code found the quote (never the model's claim); null for input without pages */
            page: number | null;
            /** the document's own text of the passage */
            quote: string;
        } | {
            source: "review";
            action: "accept" | "correct";
            /** the member (dashboard) or key (API) that completed the review */
            reviewer: {
                type: "member" | "key";
                id: string;
                email?: string;
                keyPrefix?: string;
            };
            /** rev_… */
            reviewId: string;
            reviewedAt: string;
        } | null;
        /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
        grounded: boolean;
        /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
        confidence: number;
    }>;
    fields: Array<{
        label: string;
        /** dates as YYYY-MM-DD, amounts as numbers; null is an answer (the field has no value), never left out */
        value: string | number | null;
        /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
        evidence: {
            /** the page where code found the quote (never the model's claim); null for input without pages */
            page: number | null;
            /** the document's own text of the passage */
            quote: string;
        } | {
            source: "review";
            action: "accept" | "correct";
            /** the member (dashboard) or key (API) that completed the review */
            reviewer: {
                type: "member" | "key";
                id: string;
                email?: string;
                keyPrefix?: string;
            };
            /** rev_… */
            reviewId: string;
            reviewedAt: string;
        } | null;
        /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
        grounded: boolean;
        /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
        confidence: number;
    }>;
    /** evidence, grounded and confidence of each single-valued field present in the result (docs/api.md "Evidence and confidence") */
    grounding: {
        party?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        documentNumber?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        date?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        totalAmount?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
    };
    /** Values present in the answer that could not be read; never silently dropped */
    warnings?: Array<string>;
    review?: ReviewMark;
    usage: Usage;
};
/** POST /v1/po-match request */
export type PoMatchRequest = {
    invoice: string;
    purchaseOrder: string;
    receipt?: string;
    tolerancePct?: number;
};
/** POST /v1/po-match result (with the usage of the call) */
export type PoMatchResponse = {
    /** by code from the discrepancies: any high → mismatched; else any medium → partial; else matched */
    status: "matched" | "partial" | "mismatched";
    discrepancies: Array<{
        field: string;
        item?: string;
        against?: "purchaseOrder" | "receipt" | "calculation";
        invoice?: number | string;
        purchaseOrder?: number | string;
        receipt?: number | string;
        difference?: number;
        differencePct?: number;
        /** low: within tolerancePct; high: the invoice asks for more (or another PO/currency); medium: it asks for less */
        severity: "low" | "medium" | "high";
        note: string;
    }>;
    recommendation: string;
    notes?: Array<string>;
    tolerancePct?: number;
    lineCounts?: {
        invoice: number;
        purchaseOrder: number;
        receipt?: number;
    };
    usage: Usage;
};
/** POST /v1/product-copy request */
export type ProductCopyRequest = {
    product: {
        name: string;
        features?: string;
        audience?: string;
        keywords?: Array<string>;
        brand?: string;
    };
    channel?: "amazon" | "shopify" | "generic";
    voice?: string;
};
/** POST /v1/product-copy result (with the usage of the call) */
export type ProductCopyResponse = {
    titles: Array<string>;
    bullets: Array<string>;
    description: string;
    seoKeywords: Array<string>;
    usage: Usage;
};
/** POST /v1/quote request */
export type QuoteRequest = {
    job: string;
    rates?: string | Array<{
        description: string;
        unit?: string;
        unitPrice: number;
    }>;
    pastQuotes?: string | Array<string>;
    currency?: string;
    taxRatePct?: number;
};
/** POST /v1/quote result (with the usage of the call) */
export type QuoteResponse = {
    lineItems: Array<{
        description: string;
        quantity?: number;
        unitPrice?: number;
        /** quantity × unitPrice (code) when both are given, else the lump sum */
        amount: number;
    }>;
    /** sum of the line amounts (code) */
    subtotal?: number;
    /** taxRatePct × subtotal (code) when taxRatePct is given, else a tax the job or rates state */
    tax?: number;
    /** subtotal + tax (code) */
    total: number;
    currency?: string;
    assumptions: Array<string>;
    scopeNotes?: string;
    warnings?: Array<string>;
    usage: Usage;
};
/** POST /v1/receipt request */
export type ReceiptRequest = {
    /** e.g. "1-3,7" */
    pages?: string;
    async?: boolean;
    callbackUrl?: string;
} & ({
    file: {
        /** base64-encoded file bytes */
        data: string;
        /** media type of the file (a hint: the bytes decide) */
        mimeType: string;
    };
    fileUrl?: never;
    text?: never;
} | {
    file?: never;
    fileUrl: string;
    text?: never;
} | {
    file?: never;
    fileUrl?: never;
    text: string;
});
/** POST /v1/receipt result (with the usage of the call) */
export type ReceiptResponse = {
    merchant: string;
    location?: string;
    /** YYYY-MM-DD */
    date?: string;
    /** HH:MM, 24-hour */
    time?: string;
    /** ISO 4217 code */
    currency?: string;
    subtotal?: number;
    tax?: number;
    tip?: number;
    total?: number;
    /** card numbers masked to their last 4 digits */
    paymentMethod?: string;
    category: "meals" | "travel" | "lodging" | "transport" | "office" | "software" | "utilities" | "entertainment" | "groceries" | "health" | "other";
    items: Array<{
        description: string;
        quantity?: number;
        amount: number;
        /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
        evidence: {
            /** the page where code found the quote (never the model's claim); null for input without pages */
            page: number | null;
            /** the document's own text of the passage */
            quote: string;
        } | {
            source: "review";
            action: "accept" | "correct";
            /** the member (dashboard) or key (API) that completed the review */
            reviewer: {
                type: "member" | "key";
                id: string;
                email?: string;
                keyPrefix?: string;
            };
            /** rev_… */
            reviewId: string;
            reviewedAt: string;
        } | null;
        /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
        grounded: boolean;
        /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
        confidence: number;
    }>;
    /** evidence, grounded and confidence of each single-valued field present in the result (docs/api.md "Evidence and confidence") */
    grounding: {
        merchant?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        location?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        date?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        time?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        subtotal?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        tax?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        tip?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        total?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        paymentMethod?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
    };
    /** What does not add up or could not be read; checked by code, never silently fixed */
    warnings?: Array<string>;
    review?: ReviewMark;
    usage: Usage;
};
/** POST /v1/redact request */
export type RedactRequest = {
    text: string;
    types?: Array<"name" | "email" | "phone" | "ssn" | "card" | "address" | "dob" | "medical" | "account">;
    /** Replaces each entity; "{type}" and "{TYPE}" become its type. Default "[REDACTED:{TYPE}]". */
    placeholder?: string;
};
/** POST /v1/redact result (with the usage of the call) */
export type RedactResponse = {
    redacted: string;
    entities: Array<{
        type: "name" | "email" | "phone" | "ssn" | "card" | "address" | "dob" | "medical" | "account";
        text: string;
        start: number;
        end: number;
    }>;
    entityCount: number;
    usage: Usage;
};
/** POST /v1/reply request */
export type ReplyRequest = {
    thread: string;
    context?: string;
    tone?: "professional" | "friendly" | "apologetic" | "firm";
    goal?: string;
    senderName?: string;
};
/** POST /v1/reply result (with the usage of the call) */
export type ReplyResponse = {
    reply: string;
    subject?: string;
    internalNote?: string;
    usage: Usage;
};
/** POST /v1/research request */
export type ResearchRequest = {
    query: string;
    focus?: string;
    depth?: "standard" | "deep";
};
/** POST /v1/research result (with the usage of the call) */
export type ResearchResponse = {
    /** A short answer based only on what the web search found. */
    brief: string;
    /** Standard depth asks for 3 to 6 findings, deep for 6 to 12 (guidance to the model, not a guarantee). */
    findings: Array<{
        finding: string;
        /** Indexes into `sources`: the sources the model cited by number (at least one; its answer schema bounds the numbers by the sources found). */
        sourceIndexes: Array<number>;
    }>;
    /** Only URLs the provider's web search returned, in its order, one per URL (fragment, utm_* and www. ignored), the first 50. A search with no sources is 502 inference_failed, free. */
    sources: Array<{
        url: string;
        title: string;
    }>;
    usage: Usage;
};
/** POST /v1/resume request */
export type ResumeRequest = {
    /** e.g. "1-3,7" */
    pages?: string;
    async?: boolean;
    callbackUrl?: string;
} & ({
    file: {
        /** base64-encoded file bytes */
        data: string;
        /** media type of the file (a hint: the bytes decide) */
        mimeType: string;
    };
    fileUrl?: never;
    text?: never;
} | {
    file?: never;
    fileUrl: string;
    text?: never;
} | {
    file?: never;
    fileUrl?: never;
    text: string;
});
/** POST /v1/resume result (with the usage of the call) */
export type ResumeResponse = {
    name: string;
    email?: string;
    phone?: string;
    location?: string;
    headline?: string;
    summary?: string;
    yearsExperience?: number;
    skills: Array<string>;
    experience: Array<{
        title: string;
        company: string;
        /** YYYY-MM-DD */
        startDate?: string;
        /** null when the role is current or the end is not stated */
        endDate?: string;
        /** how much of the date the resume states: "month" means the day is the 1st by convention, "year" means January 1st */
        startDatePrecision?: "day" | "month" | "year";
        /** how much of the date the resume states: "month" means the day is the 1st by convention, "year" means January 1st */
        endDatePrecision?: "day" | "month" | "year";
        /** the resume says the role is ongoing ("present") */
        current?: boolean;
        highlights: Array<string>;
        /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
        evidence: {
            /** the page where code found the quote (never the model's claim); null for input without pages */
            page: number | null;
            /** the document's own text of the passage */
            quote: string;
        } | {
            source: "review";
            action: "accept" | "correct";
            /** the member (dashboard) or key (API) that completed the review */
            reviewer: {
                type: "member" | "key";
                id: string;
                email?: string;
                keyPrefix?: string;
            };
            /** rev_… */
            reviewId: string;
            reviewedAt: string;
        } | null;
        /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
        grounded: boolean;
        /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
        confidence: number;
    }>;
    education: Array<{
        degree?: string;
        school: string;
        year?: number;
        /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
        evidence: {
            /** the page where code found the quote (never the model's claim); null for input without pages */
            page: number | null;
            /** the document's own text of the passage */
            quote: string;
        } | {
            source: "review";
            action: "accept" | "correct";
            /** the member (dashboard) or key (API) that completed the review */
            reviewer: {
                type: "member" | "key";
                id: string;
                email?: string;
                keyPrefix?: string;
            };
            /** rev_… */
            reviewId: string;
            reviewedAt: string;
        } | null;
        /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
        grounded: boolean;
        /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
        confidence: number;
    }>;
    links: {
        linkedin?: string;
        github?: string;
        website?: string;
    };
    /** evidence, grounded and confidence of each single-valued field present in the result (docs/api.md "Evidence and confidence") */
    grounding: {
        name?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        email?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        phone?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        location?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        headline?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        yearsExperience?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        "links.linkedin"?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        "links.github"?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        "links.website"?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
    };
    /** what code found wrong with the answer and did not silently fix */
    warnings?: Array<string>;
    review?: ReviewMark;
    usage: Usage;
};
/** POST /v1/review-reply request */
export type ReviewReplyRequest = {
    review: string;
    rating?: number;
    business?: {
        name?: string;
        voice?: string;
    };
    resolution?: string;
};
/** POST /v1/review-reply result (with the usage of the call) */
export type ReviewReplyResponse = {
    reply: string;
    /** of the review; with a rating, 4–5 stars are never negative and 1–2 never positive (mixed instead) */
    sentiment: "positive" | "negative" | "neutral" | "mixed";
    issues: Array<string>;
    /** true when the model says so, when the rating is 1–2 with issues, or when the review uses legal, safety or health language; code never clears the model's flag */
    escalate: boolean;
    escalationReasons?: Array<string>;
    usage: Usage;
};
/** POST /v1/rewrite request */
export type RewriteRequest = {
    text: string;
    voice?: string;
    goal?: string;
    audience?: string;
    length?: "shorter" | "same" | "longer";
    /** Phrases (product names, legal lines) that must come back unchanged wherever they occur in text */
    preserve?: Array<string>;
};
/** POST /v1/rewrite result (with the usage of the call) */
export type RewriteResponse = {
    rewritten: string;
    changes: Array<string>;
    usage: Usage;
};
/** POST /v1/screen request */
export type ScreenRequest = {
    lead: string | {
        [key: string]: ((string | number | boolean | null) | Array<string | number | boolean | null> | {
            [key: string]: (string | number | boolean | null);
        });
    };
    criteria: string | Array<string>;
    depth?: "standard" | "deep";
};
/** POST /v1/screen result (with the usage of the call) */
export type ScreenResponse = {
    verdict: "qualified" | "maybe" | "disqualified";
    score: number;
    evidenceFor: Array<{
        evidence: string;
        criterion?: string;
        sourceIndexes: Array<number>;
    }>;
    evidenceAgainst: Array<{
        evidence: string;
        criterion?: string;
        sourceIndexes: Array<number>;
    }>;
    unverified?: Array<string>;
    profile: {
        name?: string;
        website?: string;
        industry?: string;
        headquarters?: string;
        employeeRange?: "1-10" | "11-50" | "51-200" | "201-500" | "501-1000" | "1001-5000" | "5001-10000" | "10001+";
        description?: string;
    };
    sources: Array<{
        url: string;
        title: string;
    }>;
    usage: Usage;
};
/** POST /v1/sentiment request */
export type SentimentRequest = {
    text: string;
    aspects?: Array<string>;
};
/** POST /v1/sentiment result (with the usage of the call) */
export type SentimentResponse = {
    sentiment: "positive" | "negative" | "neutral" | "mixed";
    score: number;
    confidence: number;
    aspects: Array<{
        aspect: string;
        sentiment: "positive" | "negative" | "neutral" | "mixed";
        score: number;
        mentioned?: boolean;
    }>;
    themes: Array<string>;
    usage: Usage;
};
/** POST /v1/speak request */
export type SpeakRequest = {
    text: string;
    voice?: "alloy" | "ash" | "coral" | "echo" | "fable" | "nova" | "onyx" | "sage" | "shimmer" | "ballad" | "verse" | "marin" | "cedar";
    pace?: "slow" | "normal" | "fast";
    format?: "mp3" | "wav";
    /** tone and delivery, e.g. "warm and calm"; gpt-4o-mini-tts only */
    instructions?: string;
};
/** POST /v1/speak result (with the usage of the call) */
export type SpeakResponse = {
    /** base64-encoded audio bytes */
    audio: string;
    /** taken from the bytes, not from the provider */
    mimeType: string;
    /** measured from the audio (WAV header, MP3 frames) */
    durationSec?: number;
    usage: Usage;
};
/** POST /v1/split request */
export type SplitRequest = {
    /** e.g. "1-3,7" */
    pages?: string;
    async?: boolean;
    callbackUrl?: string;
} & ({
    file: {
        /** base64-encoded file bytes */
        data: string;
        /** media type of the file (a hint: the bytes decide) */
        mimeType: string;
    };
    fileUrl?: never;
    text?: never;
} | {
    file?: never;
    fileUrl: string;
    text?: never;
} | {
    file?: never;
    fileUrl?: never;
    text: string;
});
/** POST /v1/split result (with the usage of the call) */
export type SplitResponse = {
    /** in page order, page ranges never overlap */
    documents: Array<{
        /** lower-case kind, e.g. invoice, letter, contract, receipt */
        docType: string;
        title: string;
        /** 1-based, inclusive */
        pageStart: number;
        /** 1-based, inclusive; ≥ pageStart and ≤ pageCount */
        pageEnd: number;
        party?: string;
        date?: string;
        summary: string;
    }>;
    /** documents.length, computed by code */
    documentCount: number;
    /** pages in the bundle (1 for text without form feeds and for images) */
    pageCount?: number;
    /** pages in no document (blank pages, separator sheets), ascending */
    unassignedPages?: Array<number>;
    warnings?: Array<string>;
    usage: Usage;
};
/** POST /v1/statement request */
export type StatementRequest = {
    /** e.g. "1-3,7" */
    pages?: string;
    async?: boolean;
    callbackUrl?: string;
} & ({
    file: {
        /** base64-encoded file bytes */
        data: string;
        /** media type of the file (a hint: the bytes decide) */
        mimeType: string;
    };
    fileUrl?: never;
    text?: never;
} | {
    file?: never;
    fileUrl: string;
    text?: never;
} | {
    file?: never;
    fileUrl?: never;
    text: string;
});
/** POST /v1/statement result (with the usage of the call) */
export type StatementResponse = {
    institution?: string;
    accountHolder?: string;
    /** at most the last 4 digits visible */
    accountNumberMasked?: string;
    /** YYYY-MM-DD */
    periodStart?: string;
    /** YYYY-MM-DD */
    periodEnd?: string;
    /** ISO 4217 code */
    currency?: string;
    openingBalance?: number;
    closingBalance?: number;
    transactions: Array<{
        /** YYYY-MM-DD */
        date?: string;
        description: string;
        /** always ≥ 0; the sign is in `direction` */
        amount: number;
        /** debit: money out of the account; credit: money in */
        direction: "debit" | "credit";
        category?: string;
        /** the running balance the statement prints after this transaction */
        balance?: number;
        /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
        evidence: {
            /** the page where code found the quote (never the model's claim); null for input without pages */
            page: number | null;
            /** the document's own text of the passage */
            quote: string;
        } | {
            source: "review";
            action: "accept" | "correct";
            /** the member (dashboard) or key (API) that completed the review */
            reviewer: {
                type: "member" | "key";
                id: string;
                email?: string;
                keyPrefix?: string;
            };
            /** rev_… */
            reviewId: string;
            reviewedAt: string;
        } | null;
        /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
        grounded: boolean;
        /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
        confidence: number;
    }>;
    /** computed from `transactions` */
    transactionCount: number;
    /** evidence, grounded and confidence of each single-valued field present in the result (docs/api.md "Evidence and confidence") */
    grounding: {
        institution?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        accountHolder?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        periodStart?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        periodEnd?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        openingBalance?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
        closingBalance?: {
            /** the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported) */
            evidence: {
                /** the page where code found the quote (never the model's claim); null for input without pages */
                page: number | null;
                /** the document's own text of the passage */
                quote: string;
            } | {
                source: "review";
                action: "accept" | "correct";
                /** the member (dashboard) or key (API) that completed the review */
                reviewer: {
                    type: "member" | "key";
                    id: string;
                    email?: string;
                    keyPrefix?: string;
                };
                /** rev_… */
                reviewId: string;
                reviewedAt: string;
            } | null;
            /** true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5 */
            grounded: boolean;
            /** the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong */
            confidence: number;
        };
    };
    /** Balances that do not reconcile, values that could not be read; checked by code, never silently fixed */
    warnings?: Array<string>;
    review?: ReviewMark;
    usage: Usage;
};
/** POST /v1/structure request */
export type StructureRequest = {
    input: string;
    /** A JSON Schema: draft-07 by default, 2019-09 or 2020-12 via $schema; at most 100,000 characters of JSON and 32 levels deep (past either, 400 schema_too_complex); unknown keywords and formats are errors; $ref only within the schema. A schema that does not compile is 400 invalid_request. */
    schema: {
        [key: string]: unknown;
    };
    instructions?: string;
};
/** POST /v1/structure result (with the usage of the call) */
export type StructureResponse = {
    /** Any JSON value: the input shaped to the caller's schema (null when the model produced no JSON). */
    data: unknown;
    /** true exactly when data validates against schema (checked by the service, after at most one retry). */
    valid: boolean;
    /** When valid is false, the validation errors first; then remarks on assumptions or input that did not fit. */
    notes: Array<string>;
    usage: Usage;
};
/** POST /v1/summarize request */
export type SummarizeRequest = {
    text: string;
    length?: "brief" | "standard" | "detailed";
    actionItems?: boolean;
};
/** POST /v1/summarize result (with the usage of the call) */
export type SummarizeResponse = {
    summary: string;
    keyPoints: Array<string>;
    actionItems: Array<{
        task: string;
        owner?: string;
    }>;
    usage: Usage;
};
/** POST /v1/tables request */
export type TablesRequest = {
    /** e.g. "1-3,7" */
    pages?: string;
    async?: boolean;
    callbackUrl?: string;
} & ({
    file: {
        /** base64-encoded file bytes */
        data: string;
        /** media type of the file (a hint: the bytes decide) */
        mimeType: string;
    };
    fileUrl?: never;
    text?: never;
} | {
    file?: never;
    fileUrl: string;
    text?: never;
} | {
    file?: never;
    fileUrl?: never;
    text: string;
});
/** POST /v1/tables result (with the usage of the call) */
export type TablesResponse = {
    tables: Array<{
        title?: string;
        /** 1-based page where the table starts; always within the document */
        page?: number;
        headers: Array<string>;
        /** every row has exactly headers.length cells */
        rows: Array<Array<string>>;
    }>;
    /** tables.length, computed by code */
    tableCount: number;
    /** pages in the document (1 for text without form feeds and for images) */
    pageCount?: number;
    /** what code found wrong with the model's tables and how it made them rectangular */
    warnings?: Array<string>;
    usage: Usage;
};
/** POST /v1/transcribe request */
export type TranscribeRequest = {
    diarize?: boolean;
    /** ISO-639-1 hint, e.g. "en" */
    language?: string;
    /** names and terms to spell right, or the text before this audio */
    prompt?: string;
} & ({
    audioUrl: string;
    audio?: never;
} | {
    audioUrl?: never;
    audio: {
        /** base64-encoded file bytes */
        data: string;
        /** media type of the file (a hint: the bytes decide) */
        mimeType: string;
    };
});
/** POST /v1/transcribe result (with the usage of the call) */
export type TranscribeResponse = {
    text: string;
    segments: Array<{
        /** the provider's speaker label, when diarize is set and the provider gives one */
        speaker?: string;
        /** MM:SS; minutes go past 59 (75:03) */
        start: string;
        /** MM:SS; minutes go past 59 (75:03) */
        end?: string;
        startSec: number;
        endSec?: number;
        text: string;
    }>;
    /** ISO-639-1 as detected by the provider */
    language?: string;
    durationSec?: number;
    /** present when diarize was asked: whether the segments carry speakers */
    diarized?: boolean;
    usage: Usage;
};
/** POST /v1/triage request */
export type TriageRequest = {
    ticket: string;
    categories?: Array<string>;
    teams?: Array<string>;
};
/** POST /v1/triage result (with the usage of the call) */
export type TriageResponse = {
    priority: "urgent" | "high" | "normal" | "low";
    category: string;
    team?: string;
    sentiment: "positive" | "negative" | "neutral" | "mixed";
    slaRisk: boolean;
    summary: string;
    suggestedFirstResponse?: string;
    usage: Usage;
};
/** GET /v1/jobs query parameters */
export type JobsQuery = {
    /** nextCursor of the previous page */
    cursor?: string;
    /** jobs per page, 1–100; default 20 */
    limit?: number;
    status?: "queued" | "running" | "succeeded" | "failed";
    /** e.g. parse or /v1/parse */
    endpoint?: string;
};
/** GET /v1/usage query parameters */
export type UsageQuery = {
    cursor?: string;
    /** entries per page, 1–200; default 50 */
    limit?: number;
    endpoint?: string;
    keyId?: string;
    from?: string;
    to?: string;
};
/** GET /v1/usage/summary query parameters */
export type UsageSummaryQuery = {
    /** start of the window, inclusive; a whole UTC hour */
    from: string;
    /** end of the window, exclusive; a whole UTC hour, at most 400 days after from */
    to: string;
    /** day (UTC), endpoint, key (its id), or metadata.<tag>: the values of one Service-Metadata tag */
    groupBy: string;
};
/** GET /v1/usage/export query parameters */
export type ExportUsageQuery = {
    /** start of the window, inclusive */
    from: string;
    /** end of the window, exclusive */
    to: string;
    /** csv (with a header line) or jsonl (one JSON object a line) */
    format: "csv" | "jsonl";
    /** FOCUS column names (ChargePeriodStart, BilledCost, ServiceName, …) instead of the standard ones */
    columns?: "focus";
};
/** GET /v1/requests query parameters */
export type RequestsQuery = {
    /** nextCursor of the previous page */
    cursor?: string;
    /** requests per page, 1–200; default 50 */
    limit?: number;
    /** the route: a capability (classify or /v1/classify) or e.g. /v1/jobs/{id} */
    endpoint?: string;
    /** an exact status (402) or a class (4xx) */
    status?: string;
    keyId?: string;
    /** default: the calling key's; a test key reads test only */
    mode?: "live" | "test";
    from?: string;
    /** exclusive */
    to?: string;
    /** the X-Request-Id of a call */
    requestId?: string;
    /** the Idempotency-Key the calls sent */
    idempotencyKey?: string;
};
/** GET /v1/batches query parameters */
export type BatchesQuery = {
    /** nextCursor of the previous page */
    cursor?: string;
    /** batches per page, 1–100; default 20 */
    limit?: number;
};
/** GET /v1/audit-log query parameters */
export type AuditLogQuery = {
    /** key.created, or key for every key.* action */
    action?: string;
    /** a member or key id, an email, a key prefix, or operator | system | member | key */
    actor?: string;
    from?: string;
    /** exclusive */
    to?: string;
    /** nextCursor of the previous page */
    cursor?: string;
    /** 1–200, default 50 */
    limit?: string;
};
/** GET /v1/audit-log/export query parameters */
export type ExportAuditLogQuery = {
    /** key.created, or key for every key.* action */
    action?: string;
    /** a member or key id, an email, a key prefix, or operator | system | member | key */
    actor?: string;
    from?: string;
    /** exclusive */
    to?: string;
};
/** GET /v1/events query parameters */
export type EventsQuery = {
    type?: "job.completed" | "job.failed" | "batch.completed" | "review.pending" | "review.completed" | "balance.low" | "balance.recovered" | "key.budget_threshold" | "payment.succeeded" | "payment.failed" | "auto_recharge.failed" | "ping";
    /** nextCursor of the previous page */
    cursor?: string;
    /** 1–100, default 20 */
    limit?: string;
};
/** GET /v1/reviews query parameters */
export type ReviewsQuery = {
    status?: "pending" | "completed";
    /** e.g. parse or /v1/parse */
    endpoint?: string;
    /** nextCursor of the previous page */
    cursor?: string;
    /** reviews per page, 1–100; default 20 */
    limit?: number;
};
/** A job whose `result`, once it has succeeded, is R: the result of the call that created it. */
export type JobOf<R> = Omit<Job, 'result'> & {
    result?: R;
};
/** The API client: one method per operation of the published document. */
export declare class Client extends BaseClient {
    /** Categorize up to 100 items against a taxonomy, with per-item confidence. 3 credits. */
    categorize(input: CategorizeRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    categorize(input: CategorizeRequest, options?: CallOptions): Promise<CategorizeResponse>;
    /** Representment narrative, evidence checklist, reason code, win-likelihood. 15 credits. */
    chargeback(input: ChargebackRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    chargeback(input: ChargebackRequest, options?: CallOptions): Promise<ChargebackResponse>;
    /** Label text against a taxonomy: label, confidence, one-line rationale. 2 credits. */
    classify(input: ClassifyRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    classify(input: ClassifyRequest, options?: CallOptions): Promise<ClassifyResponse>;
    /** Compare two versions of a document: material changes, meaning, risk. 15 credits; async: true returns a job. */
    compare(input: CompareRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    compare(input: CompareRequest & {
        async: true;
    }, options?: CallOptions): Promise<AcceptedJob<CompareResponse>>;
    compare(input: CompareRequest & {
        async?: false;
    }, options?: CallOptions): Promise<CompareResponse>;
    compare(input: CompareRequest, options?: CallOptions): Promise<CompareResponse | AcceptedJob<CompareResponse>>;
    /** Parties, effective date, term, renewal, governing law, obligations, risk clauses; each value with the evidence code found in the document (evidence, grounded, confidence). 12 credits; async: true returns a job. */
    contract(input: ContractRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    contract(input: ContractRequest & {
        async: true;
    }, options?: CallOptions): Promise<AcceptedJob<ContractResponse>>;
    contract(input: ContractRequest & {
        async?: false;
    }, options?: CallOptions): Promise<ContractResponse>;
    contract(input: ContractRequest, options?: CallOptions): Promise<ContractResponse | AcceptedJob<ContractResponse>>;
    /** Alt text, caption, tags and text found inside an image. 3 credits. */
    describe(input: DescribeRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    describe(input: DescribeRequest, options?: CallOptions): Promise<DescribeResponse>;
    /** Collections sequence for an overdue invoice. 8 credits. */
    dunning(input: DunningRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    dunning(input: DunningRequest, options?: CallOptions): Promise<DunningResponse>;
    /** Company profile from a domain or work email. 5 credits. */
    enrich(input: EnrichRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    enrich(input: EnrichRequest, options?: CallOptions): Promise<EnrichResponse>;
    /** Extract a caller-defined field set from text, with typed values and confidence; each value with the evidence code found in the document (evidence, grounded, confidence). 4 credits. */
    extract(input: ExtractRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    extract(input: ExtractRequest, options?: CallOptions): Promise<ExtractResponse>;
    /** Risk score, signals and suggested checks for an order or transaction. 6 credits. */
    fraudFlag(input: FraudFlagRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    fraudFlag(input: FraudFlagRequest, options?: CallOptions): Promise<FraudFlagResponse>;
    /** Image from a prompt. 10 credits. */
    image(input: ImageRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    image(input: ImageRequest, options?: CallOptions): Promise<ImageResponse>;
    /** Invoice extraction: vendor, dates, PO refs, tax, totals, line items; each value with the evidence code found in the document (evidence, grounded, confidence). 8 credits; async: true returns a job. */
    invoice(input: InvoiceRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    invoice(input: InvoiceRequest & {
        async: true;
    }, options?: CallOptions): Promise<AcceptedJob<InvoiceResponse>>;
    invoice(input: InvoiceRequest & {
        async?: false;
    }, options?: CallOptions): Promise<InvoiceResponse>;
    invoice(input: InvoiceRequest, options?: CallOptions): Promise<InvoiceResponse | AcceptedJob<InvoiceResponse>>;
    /** Match rows across two record sets, with confidence and reasoning. 8 credits. */
    match(input: MatchRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    match(input: MatchRequest, options?: CallOptions): Promise<MatchResponse>;
    /** Store, search and forget agent memories in the caller's namespace (per operation). 2 credits. */
    memory(input: MemoryRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    memory(input: MemoryRequest, options?: CallOptions): Promise<MemoryResponse>;
    /** Meeting minutes: summary, decisions, action items with owners, open questions. 6 credits. */
    minutes(input: MinutesRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    minutes(input: MinutesRequest, options?: CallOptions): Promise<MinutesResponse>;
    /** Allow, review or block text or an image against a caller policy, with categories and excerpts. 2 credits. */
    moderate(input: ModerateRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    moderate(input: ModerateRequest, options?: CallOptions): Promise<ModerateResponse>;
    /** Clean a batch of records, with a change log. 5 credits. */
    normalize(input: NormalizeRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    normalize(input: NormalizeRequest, options?: CallOptions): Promise<NormalizeResponse>;
    /** Personalized outreach sequence from an enriched lead. 6 credits. */
    outreach(input: OutreachRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    outreach(input: OutreachRequest, options?: CallOptions): Promise<OutreachResponse>;
    /** Parse an invoice, receipt, EOB, ERA or COI (PDF or image) into structured JSON; each value with the evidence code found in the document (evidence, grounded, confidence). 10 credits; async: true returns a job. */
    parse(input: ParseRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    parse(input: ParseRequest & {
        async: true;
    }, options?: CallOptions): Promise<AcceptedJob<ParseResponse>>;
    parse(input: ParseRequest & {
        async?: false;
    }, options?: CallOptions): Promise<ParseResponse>;
    parse(input: ParseRequest, options?: CallOptions): Promise<ParseResponse | AcceptedJob<ParseResponse>>;
    /** Invoice vs purchase order vs receipt: matched, partial or mismatched, with sized discrepancies. 10 credits. */
    poMatch(input: PoMatchRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    poMatch(input: PoMatchRequest, options?: CallOptions): Promise<PoMatchResponse>;
    /** Titles, bullets, description and SEO keywords per channel. 5 credits. */
    productCopy(input: ProductCopyRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    productCopy(input: ProductCopyRequest, options?: CallOptions): Promise<ProductCopyResponse>;
    /** Itemized quote from a job description and rates. 8 credits. */
    quote(input: QuoteRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    quote(input: QuoteRequest, options?: CallOptions): Promise<QuoteResponse>;
    /** Receipt extraction: merchant, items, totals, payment method, expense category; each value with the evidence code found in the document (evidence, grounded, confidence). 6 credits; async: true returns a job. */
    receipt(input: ReceiptRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    receipt(input: ReceiptRequest & {
        async: true;
    }, options?: CallOptions): Promise<AcceptedJob<ReceiptResponse>>;
    receipt(input: ReceiptRequest & {
        async?: false;
    }, options?: CallOptions): Promise<ReceiptResponse>;
    receipt(input: ReceiptRequest, options?: CallOptions): Promise<ReceiptResponse | AcceptedJob<ReceiptResponse>>;
    /** Detect and strip names, emails, phones, SSNs, cards and PHI from text. 3 credits. */
    redact(input: RedactRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    redact(input: RedactRequest, options?: CallOptions): Promise<RedactResponse>;
    /** Draft a reply to a customer thread, with an internal note. 5 credits. */
    reply(input: ReplyRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    reply(input: ReplyRequest, options?: CallOptions): Promise<ReplyResponse>;
    /** Multi-source, citation-backed web research brief. 50 credits. */
    research(input: ResearchRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    research(input: ResearchRequest, options?: CallOptions): Promise<ResearchResponse>;
    /** Resume into a candidate profile; each value with the evidence code found in the document (evidence, grounded, confidence). 8 credits; async: true returns a job. */
    resume(input: ResumeRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    resume(input: ResumeRequest & {
        async: true;
    }, options?: CallOptions): Promise<AcceptedJob<ResumeResponse>>;
    resume(input: ResumeRequest & {
        async?: false;
    }, options?: CallOptions): Promise<ResumeResponse>;
    resume(input: ResumeRequest, options?: CallOptions): Promise<ResumeResponse | AcceptedJob<ResumeResponse>>;
    /** Public response to a review, issues to log, escalation flag. 3 credits. */
    reviewReply(input: ReviewReplyRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    reviewReply(input: ReviewReplyRequest, options?: CallOptions): Promise<ReviewReplyResponse>;
    /** Rewrite copy in a brand voice and report what changed. 3 credits. */
    rewrite(input: RewriteRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    rewrite(input: RewriteRequest, options?: CallOptions): Promise<RewriteResponse>;
    /** Web-grounded lead qualification against ICP criteria, with evidence for and against. 10 credits. */
    screen(input: ScreenRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    screen(input: ScreenRequest, options?: CallOptions): Promise<ScreenResponse>;
    /** Sentiment score, per-aspect breakdown and themes. 2 credits. */
    sentiment(input: SentimentRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    sentiment(input: SentimentRequest, options?: CallOptions): Promise<SentimentResponse>;
    /** Text to speech audio. 5 credits. */
    speak(input: SpeakRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    speak(input: SpeakRequest, options?: CallOptions): Promise<SpeakResponse>;
    /** Classify and split a multi-document bundle: each document, start, end, summary. 10 credits; async: true returns a job. */
    split(input: SplitRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    split(input: SplitRequest & {
        async: true;
    }, options?: CallOptions): Promise<AcceptedJob<SplitResponse>>;
    split(input: SplitRequest & {
        async?: false;
    }, options?: CallOptions): Promise<SplitResponse>;
    split(input: SplitRequest, options?: CallOptions): Promise<SplitResponse | AcceptedJob<SplitResponse>>;
    /** Bank or card statement: account, period, balances, normalized transactions; each value with the evidence code found in the document (evidence, grounded, confidence). 12 credits; async: true returns a job. */
    statement(input: StatementRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    statement(input: StatementRequest & {
        async: true;
    }, options?: CallOptions): Promise<AcceptedJob<StatementResponse>>;
    statement(input: StatementRequest & {
        async?: false;
    }, options?: CallOptions): Promise<StatementResponse>;
    statement(input: StatementRequest, options?: CallOptions): Promise<StatementResponse | AcceptedJob<StatementResponse>>;
    /** Shape messy input to a caller-supplied JSON schema; validates, retries once on failure, returns a `valid` flag. 6 credits. */
    structure(input: StructureRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    structure(input: StructureRequest, options?: CallOptions): Promise<StructureResponse>;
    /** Summary, key points and action items from a transcript, thread or report. 3 credits. */
    summarize(input: SummarizeRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    summarize(input: SummarizeRequest, options?: CallOptions): Promise<SummarizeResponse>;
    /** Every table in a document as headers and rows. 8 credits; async: true returns a job. */
    tables(input: TablesRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    tables(input: TablesRequest & {
        async: true;
    }, options?: CallOptions): Promise<AcceptedJob<TablesResponse>>;
    tables(input: TablesRequest & {
        async?: false;
    }, options?: CallOptions): Promise<TablesResponse>;
    tables(input: TablesRequest, options?: CallOptions): Promise<TablesResponse | AcceptedJob<TablesResponse>>;
    /** Audio to text with speakers and paragraph timestamps. 10 credits. */
    transcribe(input: TranscribeRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    transcribe(input: TranscribeRequest, options?: CallOptions): Promise<TranscribeResponse>;
    /** Ticket priority, category, team, sentiment, SLA risk, suggested first response. 3 credits. */
    triage(input: TriageRequest, options: CallOptions & {
        dryRun: true;
    }): Promise<DryRun>;
    triage(input: TriageRequest, options?: CallOptions): Promise<TriageResponse>;
    /** List the account’s jobs. Awaited: the first page; `for await`: every item of every page. */
    jobs(query?: JobsQuery, options?: RequestOptions): List<JobsPage, JobsPage["jobs"][number]>;
    /** Get an async job. */
    getJob(id: string, options?: RequestOptions): Promise<Job>;
    /** List the webhook deliveries of an async job. */
    jobDeliveries(id: string, options?: RequestOptions): Promise<JobDeliveries>;
    /** Get the balance and plan. */
    account(options?: RequestOptions): Promise<Account>;
    /** List ledger entries and daily totals. Awaited: the first page; `for await`: every item of every page. */
    usage(query?: UsageQuery, options?: RequestOptions): List<UsagePage, UsagePage["entries"][number]>;
    /** Summarize calls, credits, errors and latency per day, endpoint, key or tag. */
    usageSummary(query: UsageSummaryQuery, options?: RequestOptions): Promise<UsageSummary>;
    /** Export the charges of a window as CSV or JSON lines. Iterate with `for await`: one line at a time, as the server streams them. */
    exportUsage(query: ExportUsageQuery, options?: RequestOptions): AsyncIterable<string>;
    /** List the account’s requests, served or refused. Awaited: the first page; `for await`: every item of every page. */
    requests(query?: RequestsQuery, options?: RequestOptions): List<RequestsPage, RequestsPage["requests"][number]>;
    /** Get one request of the log by its request id. */
    getRequest(requestId: string, options?: RequestOptions): Promise<RequestLogEntry>;
    /** Run up to 10,000 calls of one endpoint as a batch. */
    createBatch(input: BatchRequest, options: RequestOptions & Pick<CallOptions, 'idempotencyKey' | 'dryRun'> & {
        dryRun: true;
    }): Promise<BatchQuote>;
    createBatch(input: BatchRequest, options?: RequestOptions & Pick<CallOptions, 'idempotencyKey' | 'dryRun'>): Promise<BatchAccepted>;
    /** List the account’s batches. Awaited: the first page; `for await`: every item of every page. */
    batches(query?: BatchesQuery, options?: RequestOptions): List<BatchesPage, BatchesPage["batches"][number]>;
    /** Get a batch: status, counts and credits. */
    getBatch(id: string, options?: RequestOptions): Promise<Batch>;
    /** Stream a batch’s results as JSON Lines. Iterate with `for await`: one line at a time, as the server streams them. */
    getBatchResults(id: string, options?: RequestOptions): AsyncIterable<BatchResultLine>;
    /** Cancel a batch. */
    cancelBatch(id: string, options?: RequestOptions): Promise<Batch>;
    /** Empty the account’s result cache. */
    emptyCache(options?: RequestOptions): Promise<CacheEmptied>;
    /** List the account’s keys. */
    keys(options?: RequestOptions): Promise<KeyList>;
    /** Create a key. */
    createKey(input: KeyInput, options?: RequestOptions): Promise<ApiKeyCreated>;
    /** Change a key’s name, scope or cap. */
    updateKey(id: string, input: KeyPatch, options?: RequestOptions): Promise<ApiKey>;
    /** Revoke a key. */
    revokeKey(id: string, options?: RequestOptions): Promise<KeyRevoked>;
    /** List the account’s members. */
    members(options?: RequestOptions): Promise<MemberList>;
    /** Add a member. */
    addMember(input: MemberInput, options?: RequestOptions): Promise<Member>;
    /** Change a member’s role. */
    changeMemberRole(id: string, input: RoleInput, options?: RequestOptions): Promise<Member>;
    /** Remove a member. */
    removeMember(id: string, options?: RequestOptions): Promise<Member>;
    /** List open invitations. */
    invitations(options?: RequestOptions): Promise<InvitationList>;
    /** Invite someone by email. */
    invite(input: MemberInput, options?: RequestOptions): Promise<Invitation>;
    /** Revoke an invitation. */
    revokeInvitation(id: string, options?: RequestOptions): Promise<Invitation>;
    /** List the audit log. Awaited: the first page; `for await`: every item of every page. */
    auditLog(query?: AuditLogQuery, options?: RequestOptions): List<AuditPage, AuditPage["entries"][number]>;
    /** Export the audit log as CSV. */
    exportAuditLog(query?: ExportAuditLogQuery, options?: RequestOptions): Promise<string>;
    /** Get the single sign-on settings. */
    sso(options?: RequestOptions): Promise<SsoSettings>;
    /** Set up or change single sign-on. */
    putSso(input: SsoInput, options?: RequestOptions): Promise<SsoSettings>;
    /** Turn single sign-on off. */
    removeSso(options?: RequestOptions): Promise<SsoRemoved>;
    /** List the account’s webhook endpoints. */
    webhookEndpoints(options?: RequestOptions): Promise<WebhookEndpointList>;
    /** Register a webhook endpoint. */
    createWebhookEndpoint(input: WebhookEndpointInput, options?: RequestOptions): Promise<WebhookEndpointCreated>;
    /** Get a webhook endpoint. */
    getWebhookEndpoint(id: string, options?: RequestOptions): Promise<WebhookEndpoint>;
    /** Change, disable or enable a webhook endpoint. */
    updateWebhookEndpoint(id: string, input: WebhookEndpointPatch, options?: RequestOptions): Promise<WebhookEndpoint>;
    /** Delete a webhook endpoint. */
    deleteWebhookEndpoint(id: string, options?: RequestOptions): Promise<void>;
    /** Rotate an endpoint’s signing secret. */
    rotateWebhookEndpointSecret(id: string, options?: RequestOptions): Promise<WebhookEndpointSecret>;
    /** Send a ping event to one endpoint. */
    testWebhookEndpoint(id: string, options?: RequestOptions): Promise<PingQueued>;
    /** List the account’s events. Awaited: the first page; `for await`: every item of every page. */
    events(query?: EventsQuery, options?: RequestOptions): List<EventPage, EventPage["events"][number]>;
    /** Get an event with its deliveries and their attempts. */
    getEvent(id: string, options?: RequestOptions): Promise<EventWithDeliveries>;
    /** Send an event again. */
    resendEvent(id: string, input: ResendInput, options?: RequestOptions): Promise<EventResent>;
    /** Get the alert settings. */
    alerts(options?: RequestOptions): Promise<AlertSettings>;
    /** Set balance thresholds, key budget percents and email. */
    putAlerts(input: AlertInput, options?: RequestOptions): Promise<AlertSettings>;
    /** Get the review settings. */
    reviewSettings(options?: RequestOptions): Promise<ReviewSettings>;
    /** Set which extracted results go to a person. */
    putReviewSettings(input: ReviewSettingsInput, options?: RequestOptions): Promise<ReviewSettings>;
    /** List reviews. Awaited: the first page; `for await`: every item of every page. */
    reviews(query?: ReviewsQuery, options?: RequestOptions): List<ReviewsPage, ReviewsPage["reviews"][number]>;
    /** Get a review. */
    getReview(id: string, options?: RequestOptions): Promise<Review>;
    /** Complete a review. */
    completeReview(id: string, input: CompleteReviewInput, options?: RequestOptions): Promise<Review>;
    /**
     * Reads the job until it has succeeded or failed (interval, timeout, abort signal). Given the 202 answer of
     * an async call, the job's `result` is typed as that endpoint's result.
     */
    waitForJob<R = NonNullable<Job['result']>>(job: string | AcceptedJob<R>, options?: WaitOptions): Promise<JobOf<R>>;
}
/** The body of a job callback (WebhookPayload), POSTed to a call's callbackUrl; a batch's is BatchWebhookPayload. */
export type WebhookEvent = WebhookPayload;
/** The body of an account event, POSTed to webhook endpoints: narrow it on `type`. */
export type AccountEvent = JobCompletedEvent | JobFailedEvent | BatchCompletedEvent | ReviewPendingEvent | ReviewCompletedEvent | BalanceLowEvent | BalanceRecoveredEvent | KeyBudgetThresholdEvent | PaymentSucceededEvent | PaymentFailedEvent | AutoRechargeFailedEvent | PingEvent;
/**
 * Verifies a webhook delivery (see README) and returns the event: a job callback by default,
 * `verifyWebhook<BatchWebhookPayload>(…)` at a batch's callbackUrl, or `verifyWebhook<AccountEvent>(…)` at a webhook
 * endpoint. During a rotation pass both secrets: either one verifies.
 */
export declare function verifyWebhook<E extends WebhookEvent | BatchWebhookPayload | AccountEvent = WebhookEvent>(rawBody: string | Uint8Array, headers: Headers | Record<string, string | string[] | undefined>, secret: string | readonly string[], options?: VerifyOptions): Promise<E>;
/** Every capability: name, price in credits, and whether it can run as an async job. */
export declare const CAPABILITIES: {
    readonly categorize: {
        readonly price: 3;
        readonly async: false;
    };
    readonly chargeback: {
        readonly price: 15;
        readonly async: false;
    };
    readonly classify: {
        readonly price: 2;
        readonly async: false;
    };
    readonly compare: {
        readonly price: 15;
        readonly async: true;
    };
    readonly contract: {
        readonly price: 12;
        readonly async: true;
    };
    readonly describe: {
        readonly price: 3;
        readonly async: false;
    };
    readonly dunning: {
        readonly price: 8;
        readonly async: false;
    };
    readonly enrich: {
        readonly price: 5;
        readonly async: false;
    };
    readonly extract: {
        readonly price: 4;
        readonly async: false;
    };
    readonly "fraud-flag": {
        readonly price: 6;
        readonly async: false;
    };
    readonly image: {
        readonly price: 10;
        readonly async: false;
    };
    readonly invoice: {
        readonly price: 8;
        readonly async: true;
    };
    readonly match: {
        readonly price: 8;
        readonly async: false;
    };
    readonly memory: {
        readonly price: 2;
        readonly async: false;
    };
    readonly minutes: {
        readonly price: 6;
        readonly async: false;
    };
    readonly moderate: {
        readonly price: 2;
        readonly async: false;
    };
    readonly normalize: {
        readonly price: 5;
        readonly async: false;
    };
    readonly outreach: {
        readonly price: 6;
        readonly async: false;
    };
    readonly parse: {
        readonly price: 10;
        readonly async: true;
    };
    readonly "po-match": {
        readonly price: 10;
        readonly async: false;
    };
    readonly "product-copy": {
        readonly price: 5;
        readonly async: false;
    };
    readonly quote: {
        readonly price: 8;
        readonly async: false;
    };
    readonly receipt: {
        readonly price: 6;
        readonly async: true;
    };
    readonly redact: {
        readonly price: 3;
        readonly async: false;
    };
    readonly reply: {
        readonly price: 5;
        readonly async: false;
    };
    readonly research: {
        readonly price: 50;
        readonly async: false;
    };
    readonly resume: {
        readonly price: 8;
        readonly async: true;
    };
    readonly "review-reply": {
        readonly price: 3;
        readonly async: false;
    };
    readonly rewrite: {
        readonly price: 3;
        readonly async: false;
    };
    readonly screen: {
        readonly price: 10;
        readonly async: false;
    };
    readonly sentiment: {
        readonly price: 2;
        readonly async: false;
    };
    readonly speak: {
        readonly price: 5;
        readonly async: false;
    };
    readonly split: {
        readonly price: 10;
        readonly async: true;
    };
    readonly statement: {
        readonly price: 12;
        readonly async: true;
    };
    readonly structure: {
        readonly price: 6;
        readonly async: false;
    };
    readonly summarize: {
        readonly price: 3;
        readonly async: false;
    };
    readonly tables: {
        readonly price: 8;
        readonly async: true;
    };
    readonly transcribe: {
        readonly price: 10;
        readonly async: false;
    };
    readonly triage: {
        readonly price: 3;
        readonly async: false;
    };
};
