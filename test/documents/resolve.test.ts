import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { Type } from '@sinclair/typebox'
import { ApiError } from '../../core/errors.ts'
import { FetchError } from '../../core/net/safe-fetch.ts'
import { ajv, formatErrors } from '../../core/validation.ts'
import { DocObject } from '../../core/documents/schema.ts'
import { documentParts, publicDocumentFetcher, resolveDocument, type DocumentFetcher } from '../../core/documents/resolve.ts'
import { DocumentSandbox } from '../../core/documents/sandbox.ts'
import { loadConfig } from '../../core/config.ts'
import * as fx from '../../devkit/fixtures/documents.ts'

const pdfBytes = (name: string) => readFileSync(new URL(`../../devkit/fixtures/pdf/${name}.pdf`, import.meta.url))
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64')
const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='
const noFetch: DocumentFetcher = async () => {
  throw new Error('fetch must not be called')
}
// The real decoder pool: PDFs and images are decoded in its processes, as in the server.
const sandbox = new DocumentSandbox(loadConfig({}).documents)
t.teardown(() => sandbox.close())
const deps = { fetch: noFetch, sandbox }

async function refusal(t: Test, p: Promise<unknown>, code: string, path?: string): Promise<ApiError> {
  const err = await p.then(
    () => t.fail('expected a refusal'),
    (e: unknown) => e,
  )
  t.ok(err instanceof ApiError, 'is an ApiError')
  const api = err as ApiError
  t.equal(api.code, code)
  if (path !== undefined) t.equal(api.details?.[0]?.path, path)
  return api
}

t.test('schema: exactly one of file, fileUrl, text (Ajv)', async (t) => {
  const validate = ajv.compile(DocObject({ docType: Type.Optional(Type.String({ maxLength: 64 })) }))
  t.ok(validate({ text: 'hello' }), 'text')
  t.ok(validate({ fileUrl: 'https://example.com/a.pdf', docType: 'invoice' }), 'fileUrl')
  t.ok(validate({ file: { data: PNG_1x1, mimeType: 'image/png' } }), 'file')

  t.notOk(validate({ text: 'hello', fileUrl: 'https://example.com/a.pdf' }), 'two forms')
  const two = validate.errors!.find((e) => e.keyword === 'oneOf')
  t.equal(two?.message, 'must match exactly one schema in oneOf')
  t.same(two?.params, { passingSchemas: [1, 2] }, 'says which two matched')

  t.same(
    formatErrors(validate.errors),
    [{ path: '/', message: 'give exactly one of file, fileUrl, text (got fileUrl and text)' }],
    'two: said in words, naming the two given',
  )

  t.notOk(validate({}), 'none')
  t.same(
    formatErrors(validate.errors),
    [{ path: '/', message: 'give exactly one of file, fileUrl, text (got none)' }],
    'none: one detail naming the three alternatives',
  )
  t.notOk(validate({ fileUrl: 'ftp://x', extra: 1 }), 'a oneOf met, other errors beside it')
  t.same(
    formatErrors(validate.errors).map((d) => d.path),
    ['/extra', '/fileUrl'],
    'the other errors are kept as they are',
  )

  t.notOk(validate({ text: '' }), 'empty text is rejected by the schema')
  t.notOk(validate({ text: 'x', extra: 1 }), 'no additional properties')
  t.notOk(validate({ fileUrl: 'ftp://example.com/a.pdf' }), 'http(s) only')
  t.notOk(validate({ fileUrl: 'not a url' }), 'uri format')
  t.notOk(validate({ file: { data: 'AAAA' } }), 'file.mimeType required')
  t.notOk(validate({ text: 'x'.repeat(500_001) }), 'text bounded')

  const compare = ajv.compile(Type.Object({ a: DocObject(), b: DocObject() }, { additionalProperties: false }))
  t.ok(compare({ a: { text: 'one' }, b: { fileUrl: 'https://example.com/b.pdf' } }), 'nests (compare a/b)')
  t.notOk(compare({ a: { text: 'one' }, b: {} }))
  t.ok(compare.errors!.some((e) => e.instancePath === '/b' && e.keyword === 'oneOf'))
})

t.test('text', async (t) => {
  const doc = await resolveDocument({ text: 'Invoice 42\nTotal 10.00' }, deps)
  t.same(doc, {
    kind: 'text',
    mediaType: 'text/plain',
    text: 'Invoice 42\nTotal 10.00',
    pages: ['Invoice 42\nTotal 10.00'],
    hasTextLayer: true,
  })
  t.same(documentParts(doc, true), [{ type: 'text', text: 'Invoice 42\nTotal 10.00' }])
  await refusal(t, resolveDocument({ text: ' \n\t ' }, deps), 'unprocessable', '/text')
})

t.test('exactly one form, also when called directly', async (t) => {
  await refusal(t, resolveDocument({}, deps), 'invalid_request', '')
  await refusal(t, resolveDocument({ text: 'a', fileUrl: 'https://example.com/a.pdf' }, { ...deps, at: '/b' }), 'invalid_request', '/b')
})

t.test('file: PDF with a text layer', async (t) => {
  const bytes = pdfBytes('invoice-1')
  const doc = await resolveDocument({ file: { data: b64(bytes), mimeType: 'application/pdf' } }, deps)
  t.equal(doc.kind, 'pdf')
  t.equal(doc.mediaType, 'application/pdf')
  t.equal(doc.hasTextLayer, true)
  t.equal(doc.pages.length, 1)
  t.match(doc.text, fx.invoice1.invoiceNumber)
  t.ok(Buffer.from(doc.bytes!).equals(bytes), 'original bytes kept for the model')

  t.same(
    documentParts(doc, false).map((p) => p.type),
    ['text'],
    'text only when the model takes no files',
  )
  const parts = documentParts(doc, true)
  t.same(
    parts.map((p) => p.type),
    ['text', 'file'],
  )
  t.match(parts[1], { type: 'file', mediaType: 'application/pdf' })
})

t.test('file: bundle keeps page boundaries and page markers', async (t) => {
  const doc = await resolveDocument({ file: { data: b64(pdfBytes('bundle')), mimeType: 'application/pdf' } }, deps)
  t.equal(doc.pages.length, 3)
  t.equal(doc.text.split('\f').length, 3, 'pages joined with form feeds')
  const [text] = documentParts(doc, false)
  const page3 = (text as { text: string }).text.split('--- page 3 ---\n')[1]!
  t.match(page3, fx.bundle.letter.subject)
  t.match((text as { text: string }).text, /^--- page 1 ---\n/)
})

t.test('file: the bytes decide the type, not the declared mimeType', async (t) => {
  const doc = await resolveDocument({ file: { data: b64(pdfBytes('receipt-1')), mimeType: 'image/png' } }, deps)
  t.equal(doc.kind, 'pdf')
  const img = await resolveDocument({ file: { data: PNG_1x1, mimeType: 'application/pdf' } }, deps)
  t.match(img, { kind: 'image', mediaType: 'image/png', text: '', pages: [], hasTextLayer: false })
  t.same(documentParts(img, false), [{ type: 'image', image: img.bytes, mediaType: 'image/png' }])
})

t.test('file: PDF without a text layer goes to the model as a file', async (t) => {
  const doc = await resolveDocument({ file: { data: b64(pdfBytes(fx.imageOnlyPdfName)), mimeType: 'application/pdf' } }, deps)
  t.match(doc, { kind: 'pdf', hasTextLayer: false, text: '' })
  t.equal(doc.pages.length, 1)
  t.same(
    documentParts(doc, false).map((p) => p.type),
    ['file'],
    'file even when acceptsFiles is false',
  )
})

t.test('file: base64 forms', async (t) => {
  const raw = b64(pdfBytes('receipt-2'))
  const wrapped = `data:application/pdf;base64,${raw.replace(/(.{76})/g, '$1\r\n')}`
  t.equal((await resolveDocument({ file: { data: wrapped, mimeType: 'application/pdf' } }, deps)).kind, 'pdf', 'data: URL, line breaks')
  const urlSafe = raw.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
  t.equal((await resolveDocument({ file: { data: urlSafe, mimeType: 'application/pdf' } }, deps)).kind, 'pdf', 'URL-safe, unpadded')

  for (const bad of ['not base64!', 'QUJD*', 'QUJDR', 'QU=JD', '====']) {
    await refusal(t, resolveDocument({ file: { data: bad, mimeType: 'application/pdf' } }, deps), 'invalid_request', '/file/data')
  }
  await refusal(t, resolveDocument({ file: { data: '@@', mimeType: 'x' } }, { ...deps, at: '/a' }), 'invalid_request', '/a/file/data')
  const empty = await refusal(t, resolveDocument({ file: { data: '', mimeType: 'application/pdf' } }, deps), 'unprocessable')
  t.match(empty.message, 'empty')
})

t.test('file: not a PDF or image → 422', async (t) => {
  const zip = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(60, 1)])
  const exe = Buffer.concat([Buffer.from('MZ\x90\x00'), Buffer.alloc(60, 0)])
  for (const [name, bytes, mimeType] of [
    ['zip', zip, 'application/zip'],
    ['exe', exe, 'application/pdf'],
  ] as const) {
    const err = await refusal(t, resolveDocument({ file: { data: b64(bytes), mimeType } }, deps), 'unprocessable', '/file')
    t.match(err.message, /^unsupported document type/, name)
  }
  const heic = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic'), Buffer.alloc(16)])
  const err = await refusal(t, resolveDocument({ file: { data: b64(heic), mimeType: 'image/heic' } }, deps), 'unprocessable')
  t.match(err.message, 'image/heic')
  const mp3 = Buffer.concat([Buffer.from('ID3'), Buffer.alloc(20)])
  await refusal(t, resolveDocument({ file: { data: b64(mp3), mimeType: 'audio/mpeg' } }, deps), 'unprocessable')
  const broken = await refusal(
    t,
    resolveDocument({ file: { data: b64(Buffer.from('%PDF-1.7\ntruncated')), mimeType: 'application/pdf' } }, deps),
    'document_unreadable',
    '/file',
  )
  t.match(broken.message, 'could not be read')
})

t.test('file: declared plain text is accepted when it is UTF-8', async (t) => {
  const doc = await resolveDocument({ file: { data: b64(Buffer.from('Résumé of Ana\n')), mimeType: 'text/plain; charset=utf-8' } }, deps)
  t.match(doc, { kind: 'text', mediaType: 'text/plain', text: 'Résumé of Ana\n', hasTextLayer: true })
  await refusal(
    t,
    resolveDocument({ file: { data: b64(Buffer.from([0xc3, 0x28, 0x00, 0xff])), mimeType: 'text/plain' } }, deps),
    'unprocessable',
  )
  await refusal(t, resolveDocument({ file: { data: b64(Buffer.from('<html></html>')), mimeType: 'text/html' } }, deps), 'unprocessable')
})

t.test('fileUrl via an injected fetcher', async (t) => {
  const calls: Array<[string, AbortSignal | undefined]> = []
  const signal = new AbortController().signal
  const fetch: DocumentFetcher = async (url, s) => {
    calls.push([url, s])
    return { bytes: pdfBytes('statement'), contentType: 'application/octet-stream' }
  }
  const doc = await resolveDocument({ fileUrl: 'https://files.example.com/statement.pdf' }, { fetch, sandbox, signal })
  t.same(calls, [['https://files.example.com/statement.pdf', signal]])
  t.equal(doc.kind, 'pdf')
  t.match(doc.text, fx.statement.accountNumberMasked)

  const html: DocumentFetcher = async () => ({ bytes: Buffer.from('<!doctype html><p>hi'), contentType: 'text/html' })
  await refusal(t, resolveDocument({ fileUrl: 'https://example.com/' }, { fetch: html, sandbox }), 'unprocessable', '/fileUrl')
  const empty: DocumentFetcher = async () => ({ bytes: Buffer.alloc(0), contentType: 'application/pdf' })
  await refusal(t, resolveDocument({ fileUrl: 'https://example.com/a.pdf' }, { fetch: empty, sandbox }), 'unprocessable', '/fileUrl')
  for (const url of ['ftp://example.com/a.pdf', 'https://user:pw@example.com/a.pdf', 'nonsense']) {
    await refusal(t, resolveDocument({ fileUrl: url }, deps), 'invalid_request', '/fileUrl')
  }
})

t.test('fileUrl fetch failures → 422 with the cause, never an internal address', async (t) => {
  const internal = ['10.0.0.5', 'internal.corp', '169.254.169.254']
  const cases: Array<[FetchError, RegExp]> = [
    [new FetchError('refused', 'host internal.corp (10.0.0.5) is not a public address'), /non-public address/],
    [new FetchError('too_large', 'response body exceeds 20971520 bytes'), /larger than 20 MiB/],
    [new FetchError('timeout', 'timed out after 20000 ms'), /timed out/],
    [new FetchError('http_status', 'remote server answered HTTP 404', 404), /HTTP 404/],
    [new FetchError('too_many_redirects', 'more than 3 redirects to http://169.254.169.254/'), /redirect/],
    [new FetchError('network', 'connect ECONNREFUSED 10.0.0.5:443'), /network error/],
  ]
  for (const [fe, want] of cases) {
    const fetch: DocumentFetcher = async () => {
      throw fe
    }
    const err = await refusal(
      t,
      resolveDocument({ fileUrl: 'https://internal.corp/a.pdf' }, { fetch, sandbox, at: '/a' }),
      'unprocessable',
      '/a/fileUrl',
    )
    t.match(err.message, want, fe.kind)
    for (const s of internal) t.notOk(JSON.stringify([err.message, err.details]).includes(s), `${fe.kind}: does not mention ${s}`)
  }
  const abort = new DOMException('aborted', 'AbortError')
  const aborting: DocumentFetcher = async () => {
    throw abort
  }
  await t.rejects(
    resolveDocument({ fileUrl: 'https://example.com/a.pdf' }, { fetch: aborting, sandbox }),
    abort,
    'cancellation passes through',
  )
})

t.test('fileUrl with the real guarded fetcher refuses private targets (no network needed)', async (t) => {
  const fetch = publicDocumentFetcher({ allowPrivate: false, resolver: async () => [{ address: '10.0.0.5', family: 4 }] })
  for (const url of ['http://127.0.0.1:9/a.pdf', 'https://files.internal.example/a.pdf', 'http://[::1]/a.pdf']) {
    const err = await refusal(t, resolveDocument({ fileUrl: url }, { fetch, sandbox }), 'unprocessable', '/fileUrl')
    t.equal(err.message, 'fileUrl points to a non-public address (or its host cannot be resolved)')
    t.notMatch(err.message, /127\.0\.0\.1|10\.0\.0\.5|internal|::1/)
  }
})
