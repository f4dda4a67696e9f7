// The dashboard in headless chromium: sign in through the logged link, create a key and see it once,
// revoke it, rotate the webhook secret, buy a pack through the fake Stripe and see the balance change.
// A screenshot of each page goes to test/artifacts/ (git-ignored) for a human look.
import { mkdirSync } from 'node:fs'
import t from 'tap'
import type { Page } from 'playwright-core'
import { createKey } from '../../core/accounts/keys.ts'
import { createMailer } from '../../core/mail.ts'
import { launchBrowser } from '../../devkit/browser.ts'
import { startFakeStripe } from '../../devkit/fake-stripe.ts'
import { startTestApp, testCapability } from '../helpers/app.ts'

const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname
mkdirSync(ARTIFACTS, { recursive: true })

const stripe = await startFakeStripe(t)
const app = await startTestApp(t, {
  capabilities: [
    testCapability({ name: 'summarize', price: 4 }),
    testCapability({ name: 'translate', price: 2 }),
    testCapability({ name: 'extract-invoice', price: 9 }),
  ],
  env: { STRIPE_SECRET_KEY: 'sk_test_fake', STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_API_URL: stripe.url },
})
stripe.webhookUrl = `${app.url}/stripe/webhook`
app.services.config.dashboardUrl = app.url
const logged: string[] = []
app.services.mailer = createMailer(
  undefined,
  'x@localhost',
  () => {},
  (m) => logged.push(m),
)

const browser = await launchBrowser()
t.teardown(() => browser.close())
const page: Page = await browser.newPage({ viewport: { width: 1280, height: 860 } })
const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true })
const text = (selector: string) => page.locator(selector).innerText()

t.test('sign in through the link printed on the console', async (t) => {
  await page.goto(`${app.url}/dashboard`)
  t.equal(new URL(page.url()).pathname, '/dashboard/login', 'signed-out visitors go to sign-in')
  await shot('1-sign-in')
  await page.fill('input[name=email]', 'dana@example.test')
  await page.click('button.primary')
  await page.waitForSelector('text=Check your email')
  const link = /http\S+\/dashboard\/login\/verify\?token=\S+/.exec(logged.at(-1) ?? '')![0]
  await page.goto(link)
  await page.click('button.primary')
  await page.waitForURL(`${app.url}/dashboard`)
  t.match(await text('main h1'), 'Overview')
  t.match(await text('.who .email'), 'dana@example.test')
})

t.test('create a key, see it once, use it, revoke it', async (t) => {
  await page.click('nav >> text=API keys')
  await page.fill('input[name=name]', 'production')
  await page.click('button:has-text("Create key")')
  const key = (await text('[data-testid=new-key]')).trim()
  t.match(key, /^ksk_live_[0-9A-Za-z]{32}$/)
  await shot('2-key-created')
  await page.goto(`${app.url}/dashboard/keys`)
  t.notOk((await page.content()).includes(key), 'gone after a reload')
  t.equal(await page.locator('tr[data-key-id]').count(), 2, 'the new key and the test key of the sign-up')
  t.equal((await app.call('/v1/account', { key })).status, 200)
  await page.click('tr[data-key-id] button:has-text("Revoke")')
  await page.waitForSelector('text=The key is revoked')
  t.equal(await page.locator('tr[data-key-id]').count(), 1)
  t.equal((await app.call('/v1/account', { key })).status, 401)
  await shot('3-keys')
})

t.test('the sign-up made both webhook signing secrets: reveal and rotate each', async (t) => {
  await page.click('nav >> text=Webhooks')
  t.notOk(await page.locator('button:has-text("Create secret")').count(), 'nothing to create: the sign-up made them')
  const revealed: Record<string, string> = {}
  for (const mode of ['live', 'test']) {
    await page.click(`[data-mode=${mode}] button:has-text("Reveal")`)
    revealed[mode] = (await text(`[data-mode=${mode}] [data-testid=webhook-secret]`)).trim()
    t.match(revealed[mode], /^whsec_/, `${mode}: revealed`)
  }
  t.not(revealed.live, revealed.test, 'two secrets')
  await page.goto(`${app.url}/dashboard/webhooks`)
  t.notOk((await page.content()).includes(revealed.live!), 'masked until revealed')
  await page.click('[data-mode=test] button:has-text("Rotate secret")')
  const rotated = (await text('[data-mode=test] [data-testid=webhook-secret]')).trim()
  t.match(rotated, /^whsec_/)
  t.not(rotated, revealed.test)
  await page.click('[data-mode=live] button:has-text("Reveal")')
  t.equal((await text('[data-mode=live] [data-testid=webhook-secret]')).trim(), revealed.live, 'the live secret did not change')
  await shot('4-webhooks')
})

t.test('buy a pack through (fake) Stripe Checkout and see the balance change', async (t) => {
  await page.click('nav >> text=Billing')
  await shot('5-billing-before')
  await page.click('[data-pack=starter] button:has-text("Buy")')
  await page.waitForURL(/\/pay\//)
  t.match(await page.content(), /Total: \$20\.00/)
  await page.click('#pay')
  await page.waitForURL(/\/dashboard\/billing\?checkout=done/)
  t.match(await text('[data-testid=balance]'), 'Balance: 2,000 credits')
  await shot('6-billing-after')
  await page.click('nav >> text=Overview')
  t.match(await text('.stat >> nth=0'), '2,000')
})

t.test('overview chart and usage ledger with calls on the account', async (t) => {
  const [row] = await app.services.db.sql(`select id from accounts where email = 'dana@example.test'`)
  const { key } = await createKey(app.services.db, row!.id, { name: 'ci' })
  for (const [endpoint, n] of [
    ['summarize', 5],
    ['translate', 8],
    ['extract-invoice', 3],
  ] as const) {
    for (let i = 0; i < n; i++) t.equal((await app.call(`/v1/${endpoint}`, { key, body: { text: 'x' } })).status, 200)
  }
  await page.goto(`${app.url}/dashboard`)
  t.equal(await page.locator('.chart rect').count(), 3, 'one bar segment per endpoint today')
  t.match(await text('.legend'), /translate/)
  await shot('7-overview')
  await page.click('nav >> text=Usage')
  t.equal(await page.locator('table.ledger tbody tr').count(), 17, '16 charges and the purchase')
  await page.selectOption('select[name=endpoint]', 'translate')
  await page.click('button:has-text("Apply")')
  t.equal(await page.locator('table.ledger tbody tr').count(), 8)
  await shot('8-usage')
  const download = page.waitForEvent('download')
  await page.click('text=Export CSV')
  const csv = await (await download).createReadStream()
  let body = ''
  for await (const chunk of csv) body += chunk
  t.equal(body.trim().split('\r\n').length, 9, 'header and 8 translate charges')

  await page.click('nav >> text=Requests')
  t.equal(await page.locator('table.requests tbody tr').count(), 17, 'the 16 calls and the key check of the keys test')
  await page.selectOption('select[name=endpoint]', 'summarize')
  await page.click('button:has-text("Apply")')
  t.equal(await page.locator('table.requests tbody tr').count(), 5)
  await shot('9-requests')
})

t.test('/docs "Try it out" is authorized with the signed-in account’s test key', async (t) => {
  await page.goto(`${app.url}/docs`)
  await page.waitForSelector('.btn.authorize.locked', { timeout: 20_000 })
  t.pass('the reference is authorized without typing a key')
  await shot('10-docs')
})
