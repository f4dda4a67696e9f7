// /dashboard: server-rendered pages for the account owner, one module per page in pages/ (its routes and its
// view). Authorization is the session's account: every query of a page filters by it, and a key or delivery of
// another account is simply not found.
import { readFileSync } from 'node:fs'
import type Router from '@koa/router'
import { strictRouter } from '../pipeline/routing.ts'
import type { Services } from '../services.ts'
import { errorPages } from './error-page.ts'
import { formGuard } from './guards.ts'
import { dashboardKit } from './kit.ts'
import { billingRoutes } from './pages/billing.ts'
import { keysRoutes } from './pages/keys.ts'
import { overviewRoutes } from './pages/overview.ts'
import { requestsRoutes } from './pages/requests.ts'
import { signInRoutes } from './pages/sign-in.ts'
import { usageRoutes } from './pages/usage.ts'
import { webhooksRoutes } from './pages/webhooks.ts'

const CSS = readFileSync(new URL('./assets/app.css', import.meta.url), 'utf8')
const PAGES = [signInRoutes, overviewRoutes, keysRoutes, requestsRoutes, webhooksRoutes, usageRoutes, billingRoutes]

export function dashboardRouter(services: Services): Router {
  const router = strictRouter()
  const kit = dashboardKit(services)
  router.use(errorPages(services, kit.origin))
  // POST bodies are forms; every POST carries a valid CSRF token (session or pre-session).
  router.use(formGuard(services, kit.origin))
  router.get('/dashboard/assets/app.css', (ctx) => {
    ctx.type = 'text/css'
    ctx.set('Cache-Control', 'public, max-age=3600')
    ctx.body = CSS
  })
  for (const registerPage of PAGES) registerPage(router, kit)
  return router
}
