// The operator API of C13 under /admin, behind ADMIN_TOKEN (unset: every /admin route is 404). The token is
// checked by operatorGate (core/http/routing.ts) before any router runs, whatever the path's spelling. Every
// operator action is itself in the audit log (C18): a change in its transaction, a look at an account's members,
// audit log or balance as an entry of its own, so customers see when the operator looked.
import type Router from '@koa/router'
import { Type } from '@sinclair/typebox'
import type { Context } from 'koa'
import { addCredits, createAccount, getAccount, PACKS, PLANS, rotateWebhookSecret, setPlan } from '../accounts/accounts.ts'
import { createKey, revokeKey, updateKey } from '../accounts/keys.ts'
import { KEY_MODES } from '../http/caller.ts'
import { audit, operatorActing, type Acting } from '../audit/audit.ts'
import { listAudit } from '../audit/list.ts'
import { auditFilter, AuditQuery } from '../audit/routes.ts'
import { ApiError } from '../errors.ts'
import { costPeriod, costReport } from './costs.ts'
import { workerRegistry } from './workers.ts'
import { jsonBodyReader } from '../http/body.ts'
import { strictRouter } from '../http/routing.ts'
import type { Services } from '../services.ts'
import { listMembers } from '../teams/members.ts'
import { inputReader, UUID } from '../validation.ts'
import { listAttempts } from '../webhooks/webhooks.ts'

const Plan = Type.Union((Object.keys(PLANS) as Array<keyof typeof PLANS>).map((p) => Type.Literal(p)))
const SpendCap = Type.Integer({ minimum: 0, maximum: 1e12 })
export const AdminSchemas = {
  createAccount: Type.Object(
    { email: Type.String({ format: 'email', maxLength: 254 }), plan: Type.Optional(Plan) },
    { additionalProperties: false },
  ),
  credits: Type.Union([
    Type.Object(
      { pack: Type.Union((Object.keys(PACKS) as Array<keyof typeof PACKS>).map((p) => Type.Literal(p))) },
      { additionalProperties: false },
    ),
    Type.Object(
      { credits: Type.Integer({ minimum: 1, maximum: 1e9 }), reason: Type.String({ minLength: 1, maxLength: 500 }) },
      { additionalProperties: false },
    ),
  ]),
  plan: Type.Object({ plan: Plan }, { additionalProperties: false }),
  createKey: Type.Object(
    {
      name: Type.Optional(Type.String({ maxLength: 200 })),
      monthlySpendCap: Type.Optional(Type.Union([SpendCap, Type.Null()])),
      mode: Type.Optional(Type.Union(KEY_MODES.map((m) => Type.Literal(m)))),
    },
    { additionalProperties: false },
  ),
  updateKey: Type.Object({ monthlySpendCap: Type.Union([SpendCap, Type.Null()]) }, { additionalProperties: false }),
  /** `mode: "test"`: the secret that signs the deliveries of test keys' jobs (default live). */
  webhookSecret: Type.Object({ mode: Type.Optional(Type.Union(KEY_MODES.map((m) => Type.Literal(m)))) }, { additionalProperties: false }),
}

export function adminRouter(services: Services): Router {
  const router = strictRouter('/admin')
  const body = jsonBodyReader(1024 * 1024)
  const v = {
    createAccount: inputReader(AdminSchemas.createAccount, 'body'),
    credits: inputReader(AdminSchemas.credits, 'body'),
    plan: inputReader(AdminSchemas.plan, 'body'),
    createKey: inputReader(AdminSchemas.createKey, 'body'),
    updateKey: inputReader(AdminSchemas.updateKey, 'body'),
    webhookSecret: inputReader(AdminSchemas.webhookSecret, 'body'),
    audit: inputReader(AuditQuery, 'query'),
  }
  const { db } = services
  const operator = (ctx: Context): Acting => operatorActing(services.now(), ctx.state.requestId as string, ctx.ip)
  /** A look at an account's data: audited on its own (there is no change to share a transaction with). */
  const looked = (ctx: Context, accountId: string, what: string) =>
    audit(db, operator(ctx), { accountId, action: 'operator.viewed', target: { type: 'account', id: accountId }, details: { what } })

  // A malformed id names nothing: 404, and no query sees it.
  router.param('id', async (id, ctx, next) => {
    if (!UUID.test(id)) throw new ApiError('not_found', `No such ${ctx.path.split('/')[2]?.replace(/s$/, '') ?? 'resource'}.`)
    return next()
  })
  router.post('/accounts', async (ctx) => {
    ctx.status = 201
    ctx.body = await createAccount(db, await body(ctx, v.createAccount), services.now(), operator(ctx))
  })
  router.get('/accounts/:id', async (ctx) => {
    const account = await getAccount(db, ctx.params.id!)
    await looked(ctx, account.id, 'account')
    ctx.body = account
  })
  router.get('/accounts/:id/members', async (ctx) => {
    const account = await getAccount(db, ctx.params.id!)
    await looked(ctx, account.id, 'members')
    ctx.body = { members: await listMembers(db, account.id) }
  })
  router.get('/accounts/:id/audit-log', async (ctx) => {
    const q = v.audit({ ...ctx.query })
    const account = await getAccount(db, ctx.params.id!)
    // Listed before this look is recorded: the page shows what was there when the operator asked.
    ctx.body = await listAudit(db, account.id, auditFilter(q), {
      limit: q.limit ? Number(q.limit) : 50,
      ...(q.cursor ? { cursor: q.cursor } : {}),
    })
    await looked(ctx, account.id, 'audit-log')
  })
  router.post('/accounts/:id/credits', async (ctx) => {
    ctx.body = await addCredits(db, ctx.params.id!, await body(ctx, v.credits), services.now(), operator(ctx))
  })
  router.post('/accounts/:id/plan', async (ctx) => {
    ctx.body = await setPlan(db, ctx.params.id!, (await body(ctx, v.plan)).plan, services.now(), operator(ctx))
  })
  router.post('/accounts/:id/keys', async (ctx) => {
    ctx.status = 201
    ctx.body = await createKey(db, ctx.params.id!, await body(ctx, v.createKey), undefined, operator(ctx))
  })
  router.patch('/keys/:id', async (ctx) => {
    ctx.body = await updateKey(db, ctx.params.id!, await body(ctx, v.updateKey), operator(ctx))
  })
  router.delete('/keys/:id', async (ctx) => {
    ctx.body = await revokeKey(db, ctx.params.id!, services.keys, services.now(), operator(ctx))
  })
  router.post('/accounts/:id/webhook-secret', async (ctx) => {
    const { mode } = await body(ctx, v.webhookSecret)
    ctx.body = await rotateWebhookSecret(db, ctx.params.id!, services.secrets, services.now(), operator(ctx), mode)
  })
  router.get('/costs', async (ctx) => {
    await services.modelRequests.flush() // this process's latest requests; the others' follow within 250 ms
    ctx.body = await costReport(db, costPeriod(ctx.query, services.now()))
    await audit(db, operator(ctx), { accountId: null, action: 'operator.viewed', target: { type: 'costs', id: null } })
  })
  router.get('/workers', async (ctx) => {
    ctx.body = await workerRegistry(db)
    await audit(db, operator(ctx), { accountId: null, action: 'operator.viewed', target: { type: 'workers', id: null } })
  })
  router.get('/jobs/:id/deliveries', async (ctx) => {
    const [job] = await db.sql<{ account_id: string }>(`select account_id from jobs where id = ?`, [ctx.params.id!])
    ctx.body = { deliveries: await listAttempts(db, ctx.params.id!) }
    if (job)
      await audit(db, operator(ctx), {
        accountId: job.account_id,
        action: 'operator.viewed',
        target: { type: 'job', id: ctx.params.id! },
        details: { what: 'deliveries' },
      })
  })
  return router
}
