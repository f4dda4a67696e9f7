// The route table as the app mounts it: read from the routers themselves (a router's routes() middleware
// carries the router), so a route added later is walked by every test that uses this, without editing it.
import type Router from '@koa/router'
import { buildApp } from '../../core/app.ts'
import type { Services } from '../../core/services.ts'

export interface Route {
  method: string
  path: string
}

/** Every router the app mounts. */
export function mountedRouters(services: Services): Router[] {
  return (buildApp(services).middleware as Array<{ router?: Router }>).flatMap((m) => (m.router ? [m.router] : []))
}

/** Every method × path of every mounted router (HEAD left out: it is GET without a body). */
export function mountedRoutes(services: Services): Route[] {
  const seen = new Set<string>()
  const routes: Route[] = []
  for (const router of mountedRouters(services)) {
    for (const layer of router.stack) {
      for (const method of layer.methods) {
        if (method === 'HEAD' || seen.has(`${method} ${layer.path}`)) continue
        seen.add(`${method} ${layer.path}`)
        routes.push({ method, path: String(layer.path) })
      }
    }
  }
  return routes
}
