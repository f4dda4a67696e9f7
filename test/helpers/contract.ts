// Every 200/202 a test receives is checked against the document the running app publishes
// (GET /v1/openapi.json), with Ajv 2020 as any OpenAPI 3.1 client would, never against the internal TypeBox
// objects: drift between the code and the document fails the test that saw it (issue 14).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

/** Routes answered with 2xx that the document deliberately does not describe. */
const UNDESCRIBED = new Set(['/v1/openapi.json'])

export class PublishedContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true })
  private readonly validators = new Map<string, ValidateFunction>()
  private readonly templates: Array<{ template: string; pattern: RegExp }>

  readonly doc: any
  constructor(doc: any) {
    this.doc = doc
    addFormats(this.ajv)
    this.ajv.addSchema(doc, 'openapi.json')
    this.templates = Object.keys(doc.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }))
  }

  /** Compiled contracts by document text: a test file that starts several apps compiles one document once (about 1 s each). */
  private static readonly compiled = new Map<string, PublishedContract>()

  static async fetch(baseUrl: string): Promise<PublishedContract> {
    const res = await fetch(`${baseUrl}/v1/openapi.json`)
    if (res.status !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status}`)
    const text = await res.text()
    let contract = PublishedContract.compiled.get(text)
    if (!contract) {
      // Each response schema is compiled when a test first receives that answer: compiling all of them takes a
      // second or more per file, for the few routes most files call.
      contract = new PublishedContract(JSON.parse(text))
      PublishedContract.compiled.set(text, contract)
    }
    return contract
  }

  /** Compiles every response schema up front, so that no call of a timing test waits for a compilation. */
  compileAll(): void {
    for (const [path, operations] of Object.entries<any>(this.doc.paths)) {
      for (const [method, op] of Object.entries<any>(operations)) {
        for (const status of Object.keys(op.responses ?? {}))
          if (/^\d+$/.test(status)) this.responseSchema(method, path.replace(/\{[^}]+\}/g, 'x'), Number(status))
      }
    }
  }

  /** The request body schema of POST `path`, resolved in the published document. */
  requestSchema(path: string): ValidateFunction {
    return this.ajv.getSchema(`openapi.json#/paths/${escape(path)}/post/requestBody/content/application~1json/schema`)!
  }

  /** The body schema of the webhook `name` (an event type such as balance.low), resolved in the published document. */
  webhookSchema(name: string): ValidateFunction {
    const v = this.ajv.getSchema(`openapi.json#/webhooks/${escape(name)}/post/requestBody/content/application~1json/schema`)
    if (!v) throw new Error(`the published document has no webhook ${name}`)
    return v
  }

  /** The operation's response schema for `status`, resolved in the published document. */
  responseSchema(method: string, path: string, status: number): ValidateFunction | null {
    const template = this.templates.find((t) => t.pattern.test(path))?.template
    const operation = template && this.doc.paths[template][method.toLowerCase()]
    if (!operation) return null
    const pointer = `#/paths/${escape(template)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`
    if (!operation.responses?.[String(status)]?.content?.['application/json']) return null
    let v = this.validators.get(pointer)
    if (!v) {
      v = this.ajv.getSchema(`openapi.json${pointer}`)!
      this.validators.set(pointer, v)
    }
    return v
  }

  /**
   * Throws unless an answer of a described /v1 route matches the published document: a 200/202 must be
   * described, and any described status (the errors too) must validate with its required headers.
   */
  check(method: string, url: string, status: number, headers: Headers, text: string): void {
    const path = url.split('?')[0]!
    if (!path.startsWith('/v1/') || UNDESCRIBED.has(path)) return
    const where = `${method} ${path} → ${status}`
    const validate = this.responseSchema(method, path, status)
    if (!validate) {
      const template = this.templates.find((t) => t.pattern.test(path))?.template
      const described = template !== undefined && this.doc.paths[template][method.toLowerCase()] !== undefined
      // An export (text/csv): described when the document names that media type for this status.
      const media = (headers.get('content-type') ?? '').split(';')[0]!.trim()
      if (
        described &&
        media !== 'application/json' &&
        this.doc.paths[template][method.toLowerCase()].responses?.[String(status)]?.content?.[media]
      )
        return
      // No content (a deletion): described when the document names the status, and nothing came.
      if (status === 204 && described && text === '' && this.doc.paths[template][method.toLowerCase()].responses?.['204']) return
      if (status === 200 || status === 202 || described) throw new Error(`${where}: the published document does not describe this answer`)
      return // no operation for this method and path (404 of an unknown path, 405)
    }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new Error(`${where}: the body is not JSON: ${text.slice(0, 200)}`)
    }
    if (!validate(body)) {
      throw new Error(
        `${where}: the body does not match the published schema: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}\n${text.slice(0, 1000)}`,
      )
    }
    const template = this.templates.find((t) => t.pattern.test(path))!.template
    const declared = this.doc.paths[template][method.toLowerCase()].responses[String(status)].headers ?? {}
    for (const [name, h] of Object.entries<any>(declared)) {
      const header = h.$ref ? this.doc.components.headers[h.$ref.split('/').pop()] : h
      if (header.required && !headers.has(name)) throw new Error(`${where}: the required header ${name} is missing`)
    }
  }
}

function escape(template: string): string {
  return template.replace(/~/g, '~0').replace(/\//g, '~1')
}
