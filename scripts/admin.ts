// `npm run admin -- <command>`: the operator API of C13 from the command line, one JSON object per command
// (quickstart: shell exports, for `eval`).
import { boot } from '../core/boot.ts'
import { BootRefusal, loadConfig } from '../core/config.ts'
import { addCredits, createAccount, getAccount, rotateWebhookSecret, setPlan, type Pack, type Plan } from '../core/accounts/accounts.ts'
import { createKey, revokeKey, updateKey } from '../core/accounts/keys.ts'
import type { KeyMode } from '../core/http/caller.ts'
import { costPeriod, costReport } from '../core/admin/costs.ts'
import { ApiError } from '../core/errors.ts'
import { workerRegistry } from '../core/admin/workers.ts'
import { listAttempts } from '../core/webhooks/webhooks.ts'

const USAGE = `usage: npm run admin -- <command>
  quickstart [<email>] [--credits <n>]   (an account, trial credits (500), a live and a test key and their webhook
                                          signing secrets, as shell exports: eval "$(npm run -s admin -- quickstart)")
  account:create <email> [--plan none|developer|team]
  account:get <accountId>
  account:credits <accountId> --pack first|starter|growth|scale
  account:credits <accountId> --credits <n> --reason <text>
  account:plan <accountId> <none|developer|team>
  key:create <accountId> [--name <name>] [--cap <credits>] [--mode live|test]
  key:cap <keyId> <credits|none>
  key:revoke <keyId>
  webhook-secret <accountId> [--mode live|test]   (creates or rotates; the secret is shown once)
  deliveries <jobId>                (webhook attempts of a job)
  costs [--from <date>] [--to <date>]   (revenue, provider cost and margin; default: this UTC month)
  workers                           (live workers, their heartbeats and locked jobs, recoveries of dead ones)`

function flags(args: string[]): { positional: string[]; opts: Record<string, string> } {
  const positional: string[] = []
  const opts: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a.startsWith('--')) opts[a.slice(2)] = args[++i] ?? ''
    else positional.push(a)
  }
  return { positional, opts }
}

function whole(value: string | undefined, what: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new ApiError('invalid_request', `${what} must be a whole number`)
  return n
}

function keyMode(value: string | undefined): KeyMode {
  if (value === undefined || value === 'live' || value === 'test') return value ?? 'live'
  throw new ApiError('invalid_request', '--mode must be live or test')
}

export async function runAdmin(argv: string[], out: (json: unknown) => void): Promise<number> {
  const [command, ...rest] = argv
  const {
    positional: [a = '', b],
    opts,
  } = flags(rest)
  // Every command but these names what it acts on.
  if (!command || (!a && !['quickstart', 'costs', 'workers'].includes(command))) {
    console.error(USAGE)
    return 2
  }
  const booted = await boot(loadConfig(), { capabilities: new Map(), log: () => {} })
  const { services } = booted
  const { db } = services
  try {
    switch (command) {
      case 'quickstart': {
        // The same functions as account:create, account:credits, key:create and webhook-secret, in one step.
        const now = services.now()
        const account = await createAccount(db, { email: a || `quickstart+${now.getTime()}@example.com` }, now)
        const credits = whole(opts.credits ?? '500', '--credits')
        const funded = await addCredits(db, account.id, { credits, reason: 'quickstart trial credits' }, now)
        const key = await createKey(db, account.id, { name: 'quickstart', monthlySpendCap: null })
        const testKey = await createKey(db, account.id, { name: 'quickstart (test)', mode: 'test' })
        // Without a secret a callback is never sent: a fresh account can receive its webhooks at once.
        const webhook = await rotateWebhookSecret(db, account.id, services.secrets, now)
        const testWebhook = await rotateWebhookSecret(db, account.id, services.secrets, now, undefined, 'test')
        const base = services.config.dashboardUrl ?? `http://localhost:${services.config.port}`
        out(
          [
            `# ${account.email}: ${funded.balance} credits; the keys and secrets are shown only once (TEST_KEY: free, answers each endpoint's example)`,
            `# WEBHOOK_SECRET verifies the callbacks of KEY's async calls, TEST_WEBHOOK_SECRET those of TEST_KEY's`,
            `export BASE='${base}'`,
            `export ACCOUNT_ID='${account.id}'`,
            `export KEY='${key.key}'`,
            `export TEST_KEY='${testKey.key}'`,
            `export WEBHOOK_SECRET='${webhook.secret}'`,
            `export TEST_WEBHOOK_SECRET='${testWebhook.secret}'`,
          ].join('\n'),
        )
        break
      }
      case 'costs':
        out(
          await costReport(
            db,
            costPeriod({ ...(opts.from ? { from: opts.from } : {}), ...(opts.to ? { to: opts.to } : {}) }, services.now()),
          ),
        )
        break
      case 'account:create':
        out(await createAccount(db, { email: a, plan: (opts.plan ?? 'none') as Plan }, services.now()))
        break
      case 'account:get':
        out(await getAccount(db, a))
        break
      case 'account:credits':
        out(
          await addCredits(
            db,
            a,
            opts.pack
              ? { pack: opts.pack as Pack }
              : { credits: whole(opts.credits, '--credits'), reason: opts.reason ?? 'manual adjustment' },
            services.now(),
          ),
        )
        break
      case 'account:plan':
        out(await setPlan(db, a, b as Plan, services.now()))
        break
      case 'key:create':
        out(
          await createKey(db, a, {
            ...(opts.name ? { name: opts.name } : {}),
            monthlySpendCap: opts.cap ? whole(opts.cap, '--cap') : null,
            mode: keyMode(opts.mode),
          }),
        )
        break
      case 'key:cap':
        out(await updateKey(db, a, { monthlySpendCap: b === 'none' ? null : whole(b, 'cap') }))
        break
      case 'key:revoke':
        out(await revokeKey(db, a, services.keys, services.now()))
        break
      case 'webhook-secret':
        out(await rotateWebhookSecret(db, a, services.secrets, services.now(), undefined, keyMode(opts.mode)))
        break
      case 'workers':
        out(await workerRegistry(db))
        break
      case 'deliveries':
        out({ deliveries: await listAttempts(db, a) })
        break
      default:
        console.error(USAGE)
        return 2
    }
    return 0
  } catch (e) {
    if (!(e instanceof ApiError)) throw e
    out({ error: { code: e.code, message: e.message } })
    return 1
  } finally {
    await booted.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const print = (json: unknown) => console.log(typeof json === 'string' ? json : JSON.stringify(json))
  process.exitCode = await runAdmin(process.argv.slice(2), print).catch((e: unknown) => {
    if (!(e instanceof BootRefusal)) throw e
    console.error(`Refusing to run: ${e.message}`)
    return 1
  })
}
