// Bench child process: a bare Koa + router + bodyparser route returning the live call's JSON, the floor
// every ratio is taken against. Prints its port on the first line of stdout.
import Router from '@koa/router'
import Koa from 'koa'
import bodyParser from 'koa-bodyparser'

const body = JSON.stringify({
  label: 'billing',
  confidence: 0.9,
  rationale: 'A duplicate charge.',
  usage: { credits: 2, balanceRemaining: 100, livemode: true },
})
const router = new Router()
router.post('/v1/classify', (ctx) => {
  ctx.type = 'application/json'
  ctx.body = body
})
const app = new Koa().use(bodyParser()).use(router.routes())
const server = app.listen(0, '127.0.0.1', () => console.log((server.address() as { port: number }).port))
