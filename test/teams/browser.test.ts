// The team pages in headless chromium: an owner invites a colleague, the invitation's link (from the email) is
// accepted in another browser, which lands in the account with the invited role and the account switcher, and a
// viewer's navigation holds no page it may not open. Screenshots go to test/artifacts/ (git-ignored).
import { mkdirSync } from 'node:fs'
import t from 'tap'
import { createMailer } from '../../core/mail.ts'
import { startTestApp } from '../helpers/app.ts'
import { launchBrowser } from '../../devkit/browser.ts'
import { signedInMember } from '../helpers/teams.ts'

const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname
mkdirSync(ARTIFACTS, { recursive: true })
const app = await startTestApp(t)
app.services.config.dashboardUrl = app.url
const mails: string[] = []
app.services.mailer = createMailer(
  undefined,
  'x@localhost',
  () => {},
  (m) => mails.push(m),
)
const browser = await launchBrowser()
t.teardown(() => browser.close())
const host = new URL(app.url).hostname

async function pageAs(member: { cookies: Map<string, string> }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
  await context.addCookies([...member.cookies].map(([name, value]) => ({ name, value, domain: host, path: '/dashboard' })))
  return context.newPage()
}

t.test('an owner invites; the invitee accepts in another browser and lands with the role and the switcher', async (t) => {
  const a = await app.customer(0)
  const [{ email: ownerEmail }] = (await app.services.db.sql(`select email from members where account_id = ? and role = 'owner'`, [
    a.accountId,
  ])) as [{ email: string }]
  const owner = await pageAs(await signedInMember(app, a.accountId, 'owner', ownerEmail))
  await owner.goto(`${app.url}/dashboard/team`)
  await owner.fill('input[name=email]', 'colleague@example.test')
  await owner.selectOption('form[action="/dashboard/team/invitations"] select[name=role]', 'billing')
  await owner.click('text=Send invitation')
  await owner.waitForSelector('text=Invitation sent')
  t.match(await owner.locator('[data-invitation-id]').innerText(), /colleague@example\.test\s+billing/)
  await owner.screenshot({ path: `${ARTIFACTS}team-owner.png`, fullPage: true })

  // The colleague already has an account of their own: after accepting, the switcher offers both.
  const own = await app.customer(0)
  await app.services.db.sql(
    `insert into members (id, account_id, email, role) values (gen_random_uuid(), ?, 'colleague@example.test', 'owner')`,
    [own.accountId],
  )
  const link = /https?:\/\/\S+\/dashboard\/invitations\/accept\?token=[\w-]{43}/.exec(mails.join('\n'))![0]
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
  const invitee = await context.newPage()
  await invitee.goto(link)
  t.match(await invitee.locator('[data-testid=invitation-account]').innerText(), ownerEmail)
  await invitee.click('text=Accept and sign in')
  await invitee.waitForURL(`${app.url}/dashboard`)
  t.equal(await invitee.locator('[data-testid=role]').innerText(), 'billing', 'signed in with the invited role')
  const nav = await invitee.locator('nav').innerText()
  t.match(nav, /Billing/)
  t.notMatch(nav, /API keys|Team|Audit log/, 'billing sees neither keys nor the team')
  t.equal(await invitee.locator('select[name=accountId] option').count(), 2, 'the switcher lists both accounts')
  await invitee.screenshot({ path: `${ARTIFACTS}team-invitee.png`, fullPage: true })
  await invitee.selectOption('select[name=accountId]', own.accountId)
  await invitee.click('form.switcher button')
  await invitee.waitForSelector('text=You are now in this account')
  t.equal(await invitee.locator('[data-testid=role]').innerText(), 'owner', 'switched: an owner there')
  t.match(await invitee.locator('nav').innerText(), /Team/)
})

t.test('a viewer: reads, no buttons', async (t) => {
  const a = await app.customer(0)
  const viewer = await pageAs(await signedInMember(app, a.accountId, 'viewer'))
  await viewer.goto(`${app.url}/dashboard/webhooks`)
  t.notMatch(await viewer.locator('nav').innerText(), /API keys|Billing|Team|Audit log|Single sign-on/)
  t.equal(await viewer.locator('main form[method=post]').count(), 0, 'no form to send')
  await viewer.screenshot({ path: `${ARTIFACTS}viewer-webhooks.png`, fullPage: true })
  const refused = await viewer.goto(`${app.url}/dashboard/keys`)
  t.equal(refused!.status(), 403)
})
