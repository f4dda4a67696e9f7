// The SDK generator names no route: routes added to the document (a list of events, keys to create and revoke,
// members to change) get typed methods by regeneration alone, compiled here with tsc --strict; a name two
// operations would share, or a list that does not say which array it pages, stops it with the fix.
import { execFile } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { Type } from '@sinclair/typebox'
import t from 'tap'
import { kernelOperation } from '../../core/openapi/kernel-path.ts'
import type { KernelRoute } from '../../core/openapi/kernel-route.ts'
import { publishedDocument, sdkSource, type JsonSchema, type OpenApiDocument } from '../../scripts/generate-sdk.ts'

const root = path.resolve(import.meta.dirname, '../..')

const Event = Type.Object(
  { id: Type.String(), type: Type.Union([Type.Literal('job.completed'), Type.Literal('job.failed')]), createdAt: Type.String() },
  { additionalProperties: false },
)
const EventsPage = Type.Object({ events: Type.Array(Event), nextCursor: Type.Optional(Type.String()) }, { additionalProperties: false })
const eventsRoute: KernelRoute = {
  method: 'get',
  path: '/v1/events',
  operationId: 'listEvents',
  summary: 'List events',
  tag: 'account',
  authenticated: true,
  parameters: [
    { name: 'cursor', in: 'query', required: false, schema: Type.String({ maxLength: 64 }) },
    { name: 'limit', in: 'query', required: false, schema: Type.Integer({ minimum: 1, maximum: 100 }) },
    { name: 'type', in: 'query', required: false, schema: Event.properties.type },
  ],
  response: { name: 'EventsPage', schema: EventsPage, description: 'One page of events' },
}

/** The published document with routes no branch of this repository has yet, as kernel routes publish them. */
async function grown(): Promise<OpenApiDocument> {
  const doc = JSON.parse(JSON.stringify(await publishedDocument())) as OpenApiDocument & Record<string, any>
  const Key = {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'name'],
    properties: { id: { type: 'string' }, name: { type: 'string' } },
  }
  doc.components.schemas.Key = Key
  doc.components.schemas.EventsPage = JSON.parse(JSON.stringify(EventsPage))
  doc.paths['/v1/events'] = { get: JSON.parse(JSON.stringify(kernelOperation(eventsRoute))) }
  const ok = (schema: JsonSchema) => ({ description: 'ok', content: { 'application/json': { schema } } })
  doc.paths['/v1/keys'] = {
    post: {
      operationId: 'createKey',
      summary: 'Create a key',
      parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              additionalProperties: false,
              required: ['name'],
              properties: { name: { type: 'string' }, permissions: { enum: ['all', 'call', 'read'] } },
            },
          },
        },
      },
      responses: { '201': ok({ $ref: '#/components/schemas/Key' }) },
    },
  }
  doc.paths['/v1/keys/{id}'] = {
    delete: { operationId: 'revokeKey', summary: 'Revoke a key', responses: { '204': { description: 'revoked' } } },
    patch: {
      operationId: 'updateKey',
      summary: 'Rename a key',
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } },
      },
      responses: { '200': ok({ type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'string' } } }) },
    },
  }
  return doc
}

t.test('new routes become typed methods: a list, a create with its own idempotency key, a 204 delete, a patch', async (t) => {
  const source = sdkSource(await grown())
  for (const method of [
    'events(query?: EventsQuery',
    'createKey(input: CreateKeyRequest',
    'revokeKey(id: string',
    'updateKey(id: string, input: UpdateKeyRequest',
  ])
    t.ok(source.includes(`  ${method}`), method)
  const dir = await mkdtemp(path.join(tmpdir(), 'sdk-grown-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(path.join(root, 'sdk/src/runtime.ts'), path.join(dir, 'runtime.ts'))
  await writeFile(path.join(dir, 'index.ts'), source)
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  await writeFile(
    path.join(dir, 'check.ts'),
    `import { Client, type EventsPage, type Key } from './index.js'
declare const api: Client
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
const same = <A, B>(_check: Equal<A, B>) => undefined
same<EventsPage, Awaited<ReturnType<typeof api.events>>>(true)
for await (const event of api.events({ limit: 10, type: 'job.failed' })) same<typeof event, EventsPage['events'][number]>(true)
// @ts-expect-error limit is a number
void api.events({ limit: '10' })
same<Key, Awaited<ReturnType<typeof api.createKey>>>(true)
await api.createKey({ name: 'ci', permissions: 'read' }, { idempotencyKey: 'k1' })
// @ts-expect-error not a permission
await api.createKey({ name: 'ci', permissions: 'root' })
same<void, Awaited<ReturnType<typeof api.revokeKey>>>(true)
// @ts-expect-error the id is required
await api.revokeKey()
same<{ id: string }, Awaited<ReturnType<typeof api.updateKey>>>(true)
await api.updateKey('k', { name: 'renamed', note: 'an open object takes other keys' })
export {}
`,
  )
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022', 'DOM'],
        types: [],
        strict: true,
        noEmit: true,
      },
      files: ['index.ts', 'runtime.ts', 'check.ts'],
    }),
  )
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc')
  const report = await promisify(execFile)(process.execPath, [tsc, '-p', dir]).then(
    () => '',
    (e: { stdout: string }) => e.stdout,
  )
  t.equal(report, '', 'the grown SDK and the calls on its new methods compile with tsc --strict')
})

t.test('two operations one method name, or a list that does not say what it pages, stop with the fix', async (t) => {
  const doc = await grown()
  doc.paths['/v1/events2'] = { get: { ...doc.paths['/v1/events']!.get!, operationId: 'getEvents' } }
  t.throws(() => sdkSource(doc), /GET \/v1\/events2 would be the method events\(\), already GET \/v1\/events; give it another operationId/)
  const TwoArrays = Type.Object({ a: Type.Array(Type.String()), b: Type.Array(Type.String()), nextCursor: Type.Optional(Type.String()) })
  t.throws(() => kernelOperation({ ...eventsRoute, response: { name: 'X', schema: TwoArrays, description: 'x' } }), /name it in `items`/)
  t.same(kernelOperation({ ...eventsRoute, items: 'b', response: { name: 'X', schema: TwoArrays, description: 'x' } })['x-pagination'], {
    cursor: 'cursor',
    nextCursor: 'nextCursor',
    items: 'b',
  })
})

t.test("the runtime: a 204 resolves undefined; an operation without Idempotency-Key gets no key of the SDK's own", async (t) => {
  const seen: Array<{ method?: string; key?: string | string[] }> = []
  const server = createServer((req, res) => {
    seen.push({ method: req.method, key: req.headers['idempotency-key'] })
    req.resume()
    res.writeHead(req.method === 'DELETE' ? 204 : 201, { 'content-type': 'application/json', 'x-request-id': 'req_1' })
    res.end(req.method === 'DELETE' ? undefined : JSON.stringify({ id: 'k', name: 'ci' }))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => server.close())
  const { BaseClient } = await import('../../sdk/dist/runtime.js')
  class Grown extends BaseClient {
    revokeKey(id: string) {
      return this.request<void>('DELETE', `/v1/keys/${id}`, undefined, {}, false)
    }
    createKey(input: object, idempotent: boolean) {
      return this.request<object>('POST', '/v1/keys', input, {}, idempotent)
    }
  }
  const client = new Grown({ apiKey: 'k', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
  t.equal(await client.revokeKey('k'), undefined)
  t.equal(client.lastResponse?.status, 204)
  t.same(await client.createKey({ name: 'ci' }, false), { id: 'k', name: 'ci' })
  await client.createKey({ name: 'ci' }, true)
  t.same(
    seen.map((s) => [s.method, typeof s.key]),
    [
      ['DELETE', 'undefined'],
      ['POST', 'undefined'],
      ['POST', 'string'],
    ],
    'only an operation that publishes Idempotency-Key gets the SDK’s own',
  )
})
