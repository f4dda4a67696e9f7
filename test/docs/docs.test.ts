// GET /docs in headless chromium: the reference renders /v1/openapi.json with the renderer the app serves
// itself (no request leaves the origin), lists every operation, and leaves a screenshot to look at.
import { mkdir, readFile } from 'node:fs/promises'
import t from 'tap'
import { startTestApp } from '../helpers/app.ts'
import { launchBrowser } from '../../devkit/browser.ts'
import { CAPABILITIES_ROOT, capabilityFolders } from '../../core/capability-folders.ts'

const app = await startTestApp(t)

t.test('the page and its assets are served by the app, with a CSP that keeps the page on this origin', async (t) => {
  const page = await app.call('/docs')
  t.equal(page.status, 200)
  t.match(page.headers.get('content-type'), /text\/html/)
  t.match(page.headers.get('content-security-policy'), /default-src 'self'/)
  t.notMatch(page.text, /https?:\/\//, 'no absolute URL: nothing from a CDN')
  for (const asset of ['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/init.js'])
    t.equal((await app.call(asset)).status, 200, asset)
  t.equal((await app.call('/docs/other.js')).status, 404)
  // The prose reference and the examples are linked from the page and served as pages made from the committed files.
  for (const doc of ['api.md', 'examples.md', 'contract.md']) {
    t.ok(page.text.includes(`href="/docs/${doc}"`), `/docs links ${doc}`)
    const served = await app.call(`/docs/${doc}`)
    t.equal(served.status, 200)
    t.match(served.headers.get('content-type'), /text\/html/)
    const title = /^# (.*)$/m.exec(await readFile(`docs/${doc}`, 'utf8'))![1]!
    t.match(served.text, `<title>${title.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}</title>`, `docs/${doc} as committed`)
  }
})

t.test('headless chromium renders every capability operation, offline', async (t) => {
  const browser = await launchBrowser()
  t.teardown(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 1280, height: 2000 } })
  const foreign: string[] = []
  page.on('request', (req) => {
    if (!req.url().startsWith(app.url)) foreign.push(req.url())
  })
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`${app.url}/docs`)
  await page.waitForSelector('.opblock', { timeout: 30_000 })
  const operations = await page.$$eval('.opblock', (blocks) =>
    blocks.map(
      (b) =>
        `${b.querySelector('.opblock-summary-method')?.textContent} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
    ),
  )
  // The capability operations: POST /v1/<name> of a capability (the team routes have POSTs of their own).
  const capabilityOps = operations.filter((o) => /^POST \/v1\//.test(o) && app.services.capabilities.has(o.slice('POST /v1/'.length)))
  t.equal(capabilityOps.length, capabilityFolders(CAPABILITIES_ROOT).length, 'an operation per capability folder')
  t.same(capabilityOps.sort(), [...app.services.capabilities.keys()].map((n) => `POST /v1/${n}`).sort())
  t.ok(operations.includes('GET /v1/jobs/{id}') && operations.includes('GET /v1/account'), 'and the kernel routes')
  t.match(await page.textContent('.info .title'), 'Metered AI Capability API')
  t.same(foreign, [], 'no request left the origin')
  t.same(errors, [], 'no script error')
  await mkdir('.data/screenshots', { recursive: true })
  await page.screenshot({ path: '.data/screenshots/docs.png' })

  // The prose reference, from its link: a page with its own headings and tables, its stylesheet from this origin.
  await page.click('a[href="/docs/api.md"]')
  await page.waitForSelector('main h1')
  t.match(await page.textContent('main h1'), 'The API')
  t.ok((await page.$$('main table')).length > 3, 'its tables are tables')
  t.equal(await page.$eval('nav a', (a) => a.getAttribute('href')), '/docs', 'and it links back')
  t.same(foreign, [], 'still no request left the origin')
  t.same(errors, [], 'no script error')
  await page.screenshot({ path: '.data/screenshots/docs-api.png' })
})
