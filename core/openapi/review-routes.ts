// The review routes of C21 as core/openapi/kernel-routes.ts lists them: the settings, the queue, one review and
// its completion.
import { CompleteInput, ReviewDetail, ReviewsPage } from '../reviews/queue.ts'
import { reviewsParameters } from '../reviews/routes.ts'
import { ReviewSettings, ReviewSettingsInput } from '../reviews/settings.ts'
import type { KernelRoute } from './kernel-route.ts'

const reviews = { tag: 'reviews' as const, authenticated: true }
const id = [{ name: 'id', in: 'path', required: true, description: 'the review’s id (rev_…)', schema: { type: 'string', maxLength: 64 } }]

export const REVIEW_ROUTES: KernelRoute[] = [
  {
    ...reviews,
    method: 'get',
    path: '/v1/review-settings',
    operationId: 'getReviewSettings',
    summary: 'Get the review settings',
    description: 'Mode off until set. Keys with permissions "all".',
    response: { name: 'ReviewSettings', schema: ReviewSettings, description: 'The settings' },
    errors: [403],
  },
  {
    ...reviews,
    method: 'put',
    path: '/v1/review-settings',
    operationId: 'putReviewSettings',
    summary: 'Set which extracted results go to a person',
    description:
      'ungrounded: a result with any value code found no evidence for, or found wrong, gets a review; below: any value under `threshold`; `endpoints` limits it to those extracting endpoints. One audit entry per change. Keys with permissions "all".',
    requestBody: {
      name: 'ReviewSettingsInput',
      schema: ReviewSettingsInput,
      example: { mode: 'ungrounded', endpoints: ['parse', 'invoice'] },
    },
    response: { name: 'ReviewSettings', schema: ReviewSettings, description: 'The settings' },
    errors: [400, 403],
  },
  {
    ...reviews,
    method: 'get',
    path: '/v1/reviews',
    operationId: 'listReviews',
    summary: 'List reviews',
    description: 'Newest first, with a cursor; filters `status` and `endpoint`. A key sees the reviews of its own mode.',
    parameters: reviewsParameters,
    items: 'reviews',
    response: { name: 'ReviewsPage', schema: ReviewsPage, description: 'One page of reviews' },
    errors: [400],
  },
  {
    ...reviews,
    method: 'get',
    path: '/v1/reviews/{id}',
    operationId: 'getReview',
    summary: 'Get a review',
    description:
      'The result as answered, each flagged field with its evidence and the page text around it, the document’s pages; once completed, the reviewed result.',
    parameters: id,
    response: { name: 'Review', schema: ReviewDetail, description: 'The review' },
    errors: [404],
  },
  {
    ...reviews,
    method: 'post',
    path: '/v1/reviews/{id}/complete',
    operationId: 'completeReview',
    summary: 'Complete a review',
    description:
      'One decision per flagged field: accept, or correct with the right value. The reviewed result must match the endpoint’s result schema; corrected values carry evidence of source "review" with the reviewer. An async call’s job gains `reviewedResult`. The charge of the call never changes. Keys with permissions "all".',
    parameters: id,
    requestBody: {
      name: 'CompleteReviewInput',
      schema: CompleteInput,
      example: {
        fields: [
          { path: '/totalAmount', action: 'correct', value: 998 },
          { path: '/lineItems/0', action: 'accept' },
        ],
      },
    },
    response: { name: 'Review', schema: ReviewDetail, description: 'The review, completed' },
    errors: [400, 403, 404],
  },
]
