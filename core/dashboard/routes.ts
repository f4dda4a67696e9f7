// /dashboard: server-rendered pages for an account's members, one module per page in pages/ (its routes and its
// view). Authorization is the session's account and its member's role: every route names the action it does
// (kit.allow), every query of a page filters by the account, and a key or delivery of another account is simply not
// found.
import { readFileSync } from 'node:fs'
import type Router from '@koa/router'
import { strictRouter } from '../http/routing.ts'
import type { Services } from '../services.ts'
import { errorPages } from './error-page.ts'
import { formGuard, open } from './guards.ts'
import { dashboardKit } from './kit.ts'
import { alertsRoutes } from './pages/alerts.ts'
import { auditRoutes } from './pages/audit.ts'
import { batchesRoutes } from './pages/batches.ts'
import { billingRoutes } from './pages/billing.ts'
import { endpointsRoutes } from './pages/endpoints.ts'
import { eventsRoutes } from './pages/events.ts'
import { invitationRoutes } from './pages/invitation.ts'
import { keysRoutes } from './pages/keys.ts'
import { overviewRoutes } from './pages/overview.ts'
import { requestsRoutes } from './pages/requests.ts'
import { reviewsRoutes } from './pages/reviews.ts'
import { signInRoutes } from './pages/sign-in.ts'
import { ssoSignInRoutes } from './pages/sso-sign-in.ts'
import { ssoRoutes } from './pages/sso.ts'
import { teamRoutes } from './pages/team.ts'
import { usageRoutes } from './pages/usage.ts'
import { webhooksRoutes } from './pages/webhooks.ts'

const CSS = readFileSync(new URL('./assets/app.css', import.meta.url), 'utf8')
const PAGES = [
  signInRoutes,
  invitationRoutes,
  ssoSignInRoutes,
  overviewRoutes,
  keysRoutes,
  requestsRoutes,
  batchesRoutes,
  reviewsRoutes,
  webhooksRoutes,
  endpointsRoutes,
  eventsRoutes,
  alertsRoutes,
  usageRoutes,
  billingRoutes,
  teamRoutes,
  auditRoutes,
  ssoRoutes,
]

export function dashboardRouter(services: Services): Router {
  const router = strictRouter()
  const kit = dashboardKit(services)
  router.use(errorPages(services, kit.origin))
  // POST bodies are forms; every POST carries a valid CSRF token (session or pre-session).
  router.use(formGuard(services, kit.origin))
  router.get('/dashboard/assets/app.css', open, (ctx) => {
    ctx.type = 'text/css'
    ctx.set('Cache-Control', 'public, max-age=3600')
    ctx.body = CSS
  })
  for (const registerPage of PAGES) registerPage(router, kit)
  return router
}
