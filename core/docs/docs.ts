// GET /docs: the API reference, rendered in the browser from /v1/openapi.json by Swagger UI (swagger-ui-dist
// from npm, no runtime dependencies, served from here: no CDN, works offline). The CSP keeps every request on
// this origin. The prose reference (docs/api.md), the curl/Python examples (docs/examples.md) and the contract
// decisions (docs/contract.md) are linked from the page and served as HTML pages (core/docs/markdown.ts). Signed
// in to the dashboard, "Try it out" is authorized with the account's test key: calls from the reference are free
// and never reach a model. /favicon.ico is served here too.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type Router from '@koa/router'
import { strictRouter } from '../http/routing.ts'
import { FAVICON } from './favicon.ts'
import { markdownPage } from './markdown.ts'

const dist = (createRequire(import.meta.url)('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath()
// A Map: the name comes from the URL, and a plain object would also answer `constructor` or `__proto__`.
const ASSETS = new Map<string, { file: string; type: string }>([
  ['swagger-ui.css', { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' }],
  ['swagger-ui-bundle.js', { file: 'swagger-ui-bundle.js', type: 'application/javascript; charset=utf-8' }],
])

const DOCS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs')
const MARKDOWN = new Set(['api.md', 'examples.md', 'contract.md'])

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Metered AI Capability API — reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<nav style="font: 14px sans-serif; padding: 8px 20px">Also: <a href="/docs/api.md">the reference in prose (docs/api.md)</a>
· <a href="/docs/examples.md">curl and Python for every route (docs/examples.md)</a>
· <a href="/docs/contract.md">the decisions C1–C16 (docs/contract.md)</a></nav>
<div id="reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`

const init = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  validatorUrl: null,
  tryItOutEnabled: false,
  // x-price, x-limits (pages, file size, context tokens, the strategy over it) shown on each operation.
  showExtensions: true,
  // The dashboard session's test key, when there is one (a signed-out visitor is redirected, and enters a key).
  onComplete: () =>
    fetch('/dashboard/docs-key', { credentials: 'same-origin', redirect: 'manual' })
      .then((res) => (res.ok ? res.json() : null))
      .then((body) => body && body.key && window.ui.preauthorizeApiKey('bearer', body.key))
      .catch(() => {}),
})
`

const DOCS_CSS = `body { font: 15px/1.55 system-ui, sans-serif; color: #1f2937; margin: 0 }
nav { padding: 10px 24px; border-bottom: 1px solid #e5e7eb; font-size: 14px }
main { max-width: 980px; padding: 8px 24px 48px }
a { color: #4f46e5 }
code { font: 13px ui-monospace, monospace; background: #f3f4f6; padding: 1px 4px; border-radius: 3px }
pre { background: #f3f4f6; padding: 12px; overflow-x: auto; border-radius: 6px }
pre code { background: none; padding: 0 }
table { border-collapse: collapse; margin: 12px 0 }
th, td { border: 1px solid #e5e7eb; padding: 4px 8px; text-align: left; vertical-align: top }
blockquote { border-left: 3px solid #c7d2fe; margin: 0; padding-left: 12px; color: #4b5563 }
`

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ')

export function docsRouter(): Router {
  const router = strictRouter()
  const cache = new Map<string, Promise<Buffer>>()
  router.get('/docs', (ctx) => {
    ctx.set('Content-Security-Policy', CSP)
    ctx.type = 'text/html; charset=utf-8'
    ctx.body = page
  })
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'application/javascript; charset=utf-8'
    ctx.body = init
  })
  router.get('/docs/docs.css', (ctx) => {
    ctx.type = 'text/css; charset=utf-8'
    ctx.body = DOCS_CSS
  })
  router.get('/favicon.ico', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=86400')
    ctx.type = 'image/x-icon'
    ctx.body = FAVICON
  })
  router.get('/docs/:asset', async (ctx, next) => {
    // An image built without docs/ answers 404, as for any unknown asset.
    const markdown = MARKDOWN.has(ctx.params.asset!) ? await readFile(path.join(DOCS, ctx.params.asset!), 'utf8').catch(() => null) : null
    if (markdown !== null) {
      ctx.set('Content-Security-Policy', CSP)
      ctx.type = 'text/html; charset=utf-8'
      ctx.body = markdownPage(markdown)
      return
    }
    const asset = ASSETS.get(ctx.params.asset!)
    if (!asset) {
      await next()
      return
    }
    if (!cache.has(asset.file)) cache.set(asset.file, readFile(path.join(dist, asset.file)))
    ctx.set('Cache-Control', 'public, max-age=3600')
    ctx.type = asset.type
    ctx.body = await cache.get(asset.file)
  })
  return router
}
