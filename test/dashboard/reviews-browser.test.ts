// The review queue in headless chromium (C21): a developer opens a review, sees each page of the document with the
// quotes of the flagged values highlighted beside the values, and completes it with the keyboard alone: Tab to the
// wrong total, type the right one, Enter (every other value, left as it was, is accepted). The completed review
// says who reviewed what; a viewer sees the review without the form. A scan (a PDF without a text layer) shows
// its page as an image, rendered by the server, with the same keyboard flow. Screenshots go to test/artifacts/.
import { mkdirSync } from 'node:fs'
import t from 'tap'
import parse from '../../capabilities/parse/manifest.ts'
import { launchBrowser } from '../../devkit/browser.ts'
import { capabilityHarness } from '../helpers/capability.ts'
import { quoted, supports } from '../../devkit/evidence.ts'
import { pdfFile } from '../../devkit/fixture-files.ts'
import { invoice1 } from '../../devkit/fixtures/documents.ts'
import { signedInMember } from '../helpers/teams.ts'

const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname
mkdirSync(ARTIFACTS, { recursive: true })

const pages = invoice1.toPages()
const cap = await capabilityHarness(t, parse, { funds: 1000 })
const { app } = cap
app.services.config.dashboardUrl = app.url
const ABSENT_TOTAL = 7777.77

const customer = await cap.customer()
await app.call('/v1/review-settings', { key: customer.key, method: 'PUT', body: { mode: 'below', threshold: 0.95 } })
const lines = invoice1.lineItems.slice(0, 2).map((l) => ({ description: l.description, amount: l.amount }))
cap.reply({
  docType: 'invoice',
  party: invoice1.vendor.name,
  documentNumber: invoice1.invoiceNumber,
  date: invoice1.issueDate,
  totalAmount: ABSENT_TOTAL,
  currency: invoice1.currency,
  lineItems: quoted(pages, lines, ['description', 'amount']),
  fields: [],
  support: supports(pages, {
    party: invoice1.vendor.name,
    documentNumber: invoice1.invoiceNumber,
    date: invoice1.issueDate,
    totalAmount: ABSENT_TOTAL,
  }),
})
const call = await cap.post(customer, { text: invoice1.toText() })
const review = call.body.review as { id: string; fields: string[] }

// devkit/fixtures/pdf/scanned-invoice.pdf, as a model reads it: nothing of it is in a text layer code could check.
const scanRead = ['Boulangerie Dupont SARL\nFACTURE N° F-2024-0312\nDate : 05/03/2024\nTotal TTC : 372,42 €']
const scanValues = { party: 'Boulangerie Dupont SARL', documentNumber: 'F-2024-0312', date: '2024-03-05', totalAmount: 372.42 }
cap.reply({ docType: 'invoice', ...scanValues, currency: 'EUR', lineItems: [], fields: [], support: supports(scanRead, scanValues) })
const scan = await cap.post(customer, { file: pdfFile('scanned-invoice') })
const scanReview = scan.body.review as { id: string; fields: string[] }

const browser = await launchBrowser()
t.teardown(() => browser.close())

async function signedInPage(role: 'developer' | 'viewer') {
  const member = await signedInMember(app, customer.accountId, role)
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
  await context.addCookies([{ name: 'dash_session', value: member.cookies.get('dash_session')!, url: app.url }])
  return { member, page: await context.newPage() }
}

t.test('a developer completes a review with the keyboard: accept by leaving a value, correct by typing over it', async (t) => {
  t.ok(review.fields.includes('/totalAmount') && review.fields.length >= 4, `flagged: ${review.fields.join(', ')}`)
  const { member, page } = await signedInPage('developer')
  await page.goto(`${app.url}/dashboard/reviews`)
  t.equal(await page.locator(`tr[data-review-id="${review.id}"]`).count(), 1, 'the review is in the queue')
  await page.click(`tr[data-review-id="${review.id}"] a`)
  await page.waitForURL(`${app.url}/dashboard/reviews/${review.id}`)
  const marks = await page.locator('pre.page mark').allInnerTexts()
  t.ok(marks.includes(invoice1.vendor.name), 'the party’s quote is highlighted in the page text')
  t.ok(
    marks.some((m) => m.includes(invoice1.invoiceNumber)),
    'and the invoice number’s',
  )
  t.equal(await page.locator('[data-path="/totalAmount"] blockquote').count(), 0, 'the absent total has no quote to show')
  await page.screenshot({ path: `${ARTIFACTS}review-pending.png`, fullPage: true })

  t.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'f0', 'the first value has the focus')
  const target = `f${review.fields.indexOf('/totalAmount')}`
  for (let i = 0; i < 20 && (await page.evaluate(() => (document.activeElement as HTMLInputElement).name)) !== target; i++) {
    await page.keyboard.press('Tab')
  }
  t.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), target, 'Tab reaches the total')
  await page.keyboard.press('Control+A')
  await page.keyboard.type(String(invoice1.total))
  await page.keyboard.press('Enter')
  await page.waitForSelector('[data-testid=status]:has-text("completed")')
  t.match(await page.locator('[data-testid=reviewer]').innerText(), member.email, 'who reviewed it')
  t.match(await page.locator('[data-path="/totalAmount"] [data-testid=decision]').innerText(), `Corrected to ${invoice1.total}`)
  t.match(await page.locator('[data-path="/party"] [data-testid=decision]').innerText(), 'Accepted')
  await page.screenshot({ path: `${ARTIFACTS}review-completed.png`, fullPage: true })

  const done = (await app.call(`/v1/reviews/${review.id}`, { key: customer.key })).body
  t.equal(done.reviewedResult.totalAmount, invoice1.total, 'the correction is in the reviewed result')
  t.match(done.reviewedResult.grounding.totalAmount.evidence, {
    source: 'review',
    action: 'correct',
    reviewer: { type: 'member', email: member.email },
  })
  t.equal(done.reviewedResult.party, invoice1.vendor.name, 'the accepted value kept')
  t.same(
    done.decisions.filter((d: { action: string }) => d.action === 'correct').map((d: { path: string }) => d.path),
    ['/totalAmount'],
    'one correction; every other value accepted',
  )
})

t.test('a scan: its page is an image beside the values, loaded lazily; the keyboard flow is the same', async (t) => {
  t.ok(scanReview?.fields.includes('/totalAmount'), `flagged: ${scanReview?.fields.join(', ')}`)
  const { page } = await signedInPage('developer')
  await page.goto(`${app.url}/dashboard/reviews/${scanReview.id}`)
  const image = page.locator('img.page-image[data-page="1"]')
  t.equal(await image.getAttribute('loading'), 'lazy')
  t.match(await image.getAttribute('alt'), /^Page 1 of the document/)
  await page.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>('img.page-image')
    return img?.complete && img.naturalWidth > 0
  })
  const natural = await image.evaluate((img: HTMLImageElement) => ({ width: img.naturalWidth, height: img.naturalHeight }))
  t.ok(natural.width > 0 && natural.width <= 1100, `the page image loaded (${natural.width}×${natural.height})`)
  const shown = (await image.boundingBox())!
  const fields = (await page.locator('.review-fields').boundingBox())!
  t.ok(shown.width > 300 && shown.x + shown.width <= fields.x, 'beside the values, readable')
  await page.screenshot({ path: `${ARTIFACTS}review-scan.png`, fullPage: true })

  t.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'f0', 'the first value has the focus')
  const target = `f${scanReview.fields.indexOf('/totalAmount')}`
  for (let i = 0; i < 20 && (await page.evaluate(() => (document.activeElement as HTMLInputElement).name)) !== target; i++) {
    await page.keyboard.press('Tab')
  }
  t.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), target, 'Tab reaches the total, past the image')
  await page.keyboard.press('Control+A')
  await page.keyboard.type('372.42')
  await page.keyboard.press('Enter')
  await page.waitForSelector('[data-testid=status]:has-text("completed")')
  t.match(
    await page.locator('[data-path="/totalAmount"] [data-testid=decision]').innerText(),
    'Accepted',
    'the same value typed is accepted',
  )
})

t.test('a viewer reads reviews but gets no form', async (t) => {
  const { page } = await signedInPage('viewer')
  await page.goto(`${app.url}/dashboard/reviews/${review.id}`)
  t.equal(await page.locator('form[action^="/dashboard/reviews/"]').count(), 0, 'no form')
  t.ok(await page.locator('pre.page').count(), 'the document is shown')
})

t.test('the settings form: a developer turns mode ungrounded on for parse, with consent; one audit entry by the member', async (t) => {
  const { member, page } = await signedInPage('developer')
  await page.goto(`${app.url}/dashboard/reviews`)
  await page.selectOption('select[name=mode]', 'ungrounded')
  await page.fill('input[name=threshold]', '')
  await page.fill('input[name=endpoints]', 'parse')
  await page.check('input[name=evalConsent]')
  await page.click('[data-testid=review-settings] button')
  await page.waitForSelector('text=Review settings saved')
  await page.screenshot({ path: `${ARTIFACTS}review-queue.png`, fullPage: true })
  t.match((await app.call('/v1/review-settings', { key: customer.key })).body, {
    mode: 'ungrounded',
    endpoints: ['parse'],
    evalConsent: true,
  })
  const entries = await app.services.db.sql(
    `select * from audit_entries where account_id = ? and action = 'review_settings.updated' order by id`,
    [customer.accountId],
  )
  t.match(entries.at(-1), { actor_type: 'member', actor_email: member.email })
})
