// OpenTelemetry (issue 31): off and free unless OTEL_* names an endpoint; on, the spans arrive at an OTLP/HTTP
// receiver this test runs on loopback: one per request (continuing the caller's traceparent), per model attempt
// (provider, model, tokens), per money statement, per job, the job linked to the request that accepted it.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { jobSpans, money, startTracing, traceparent, tracedModel, tracingConfigured } from '../../core/observability/tracing.ts'
import { fakeServerProvider, mockLanguageModel, startTestApp, testCapability } from '../helpers/app.ts'
import { startFakeOpenAI } from '../../devkit/fake-openai.ts'

interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>
  links?: Array<{ traceId: string; spanId: string }>
  service: string
}

t.test('off: nothing is loaded and every hook hands back what it was given', async (t) => {
  t.equal(tracingConfigured({}), false, 'no OTEL_* endpoint: off')
  t.equal(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_SDK_DISABLED: 'true' }), false, 'OTEL_SDK_DISABLED')
  t.equal(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_TRACES_EXPORTER: 'none' }), false, 'OTEL_TRACES_EXPORTER=none')
  t.equal(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x/v1/traces' }), true, 'a traces endpoint: on')
  t.equal(await startTracing('test'), null, 'startTracing does nothing without the variables')
  const model = mockLanguageModel(() => ({}))
  const query = { sql: async () => [] }
  const tasks = { a: async () => {} }
  t.equal(tracedModel(model as never), model, 'the model itself, no proxy')
  t.equal(money(query), query, 'the query handle itself')
  t.equal(jobSpans(tasks), tasks, 'the task list itself')
  t.equal(traceparent(), null, 'no traceparent stored with jobs')
})

t.test('on: spans reach an OTLP/HTTP receiver', async (t) => {
  const spans: OtlpSpan[] = []
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      for (const rs of body.resourceSpans ?? []) {
        const service = rs.resource.attributes.find((a: any) => a.key === 'service.name')?.value.stringValue
        for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ ...s, service })
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise((r) => receiver.close(r)))
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
  process.env.OTEL_SERVICE_NAME = 'capapi-test'
  process.env.OTEL_BSP_SCHEDULE_DELAY = '100'
  const stop = await startTracing('test')
  t.ok(stop, 'started')

  const fake = await startFakeOpenAI({ text: () => ({ answer: 'yes' }) })
  t.teardown(() => fake.close())
  const handler = async (input: any, ctx: any) => ctx.ai.object({ system: 'Answer.', content: input.text })
  const response = {
    type: 'object',
    properties: { answer: { type: 'string', maxLength: 100 } },
    required: ['answer'],
    additionalProperties: false,
  }
  const app = await startTestApp(t, {
    capabilities: [
      testCapability({ name: 'answer', price: 3, response: response as never, handler }),
      testCapability({ name: 'later', price: 4, async: true, response: response as never, handler }),
    ],
    provider: fakeServerProvider(fake.baseURL, 'chat'),
    worker: true,
  })
  const c = await app.customer(100)

  // A caller that traces too: its traceparent is the parent of our request span.
  const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736'
  const callerSpan = '00f067aa0ba902b7'
  const sync = await app.call('/v1/answer', {
    body: { text: 'q' },
    key: c.key,
    headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` },
  })
  t.equal(sync.status, 200)
  const accepted = await app.call('/v1/later', { body: { text: 'q', async: true }, key: c.key })
  t.equal(accepted.status, 202)
  const jobId: string = accepted.body.jobId
  for (let i = 0; i < 100; i++) {
    const job = await app.call(`/v1/jobs/${jobId}`, { key: c.key })
    if (job.body.status === 'succeeded') break
    await new Promise((r) => setTimeout(r, 100))
  }
  await stop!() // flushes

  const attr = (s: OtlpSpan, key: string) => {
    const v = s.attributes.find((a) => a.key === key)?.value
    return v?.stringValue ?? (v?.intValue === undefined ? undefined : Number(v.intValue))
  }
  const childrenOf = (s: OtlpSpan) => spans.filter((x) => x.parentSpanId === s.spanId && x.traceId === s.traceId)

  const request = spans.find((s) => s.name === 'POST /v1/answer')
  if (!request) return t.fail(`no request span among ${spans.map((s) => s.name).join(', ')}`)
  t.equal(request.service, 'capapi-test', 'OTEL_SERVICE_NAME names the service')
  t.equal(request.kind, 2, 'a server span')
  t.equal(request.traceId, callerTrace, "continues the caller's trace")
  t.equal(request.parentSpanId, callerSpan, "under the caller's span")
  t.equal(attr(request, 'http.route'), '/v1/answer')
  t.equal(attr(request, 'http.response.status_code'), 200)
  t.equal(attr(request, 'capapi.request_id'), sync.headers.get('x-request-id'), 'the request id, as in the logs')

  const inRequest = childrenOf(request)
  const model = inRequest.find((s) => s.name === 'model test-model')
  t.ok(model, 'a model attempt under the request')
  if (model) {
    t.equal(attr(model, 'gen_ai.provider.name'), 'openai.chat')
    t.equal(attr(model, 'gen_ai.request.model'), 'test-model')
    t.ok(Number(attr(model, 'gen_ai.usage.input_tokens')) > 0, 'input tokens')
    t.ok(Number(attr(model, 'gen_ai.usage.output_tokens')) > 0, 'output tokens')
  }
  t.same(
    inRequest.filter((s) => s.name.startsWith('money ')).map((s) => s.name),
    ['money reserve_call', 'money capture_hold'],
    'the hold and the capture, each a span under the request',
  )

  const acceptingRequest = spans.find((s) => s.name === 'POST /v1/later')
  const job = spans.find((s) => s.name === 'job run_capability')
  if (!acceptingRequest || !job) return t.fail('no accepting request or job span')
  t.same(
    childrenOf(acceptingRequest).map((s) => s.name),
    ['money accept_job'],
    'the acceptance holds the credits',
  )
  t.equal(attr(job, 'capapi.job_id'), jobId, 'the job span names the job')
  t.same(
    job.links?.map((l) => [l.traceId, l.spanId]),
    [[acceptingRequest.traceId, acceptingRequest.spanId]],
    'linked to the request that accepted it',
  )
  t.same(
    childrenOf(job)
      .map((s) => s.name)
      .sort(),
    ['model test-model', 'money end_jobs'],
    'the model attempt and the capture (end_jobs) run under the job',
  )
})
