// docs/examples.md (issue 30): generated from the published document's examples, never edited by hand, and
// every example works: the Python file (helper + every call) and the curl lines run against the app, as dry
// runs, and each capability's example body passes validation.
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import { EXAMPLES_FILE, examplesMarkdown } from '../../scripts/generate-examples.ts'
import { startTestApp } from '../helpers/app.ts'

const run = promisify(execFile)

/** A dry run's quote of a valid body: validation passed (a paused or provider-less endpoint still quotes 503). */
function accepted(t: Test, answer: Record<string, any>, route: string) {
  t.equal(answer.dryRun, true, `${route}: quoted`)
  t.not(answer.liveStatus, 400, `${route}: the example body is valid${answer.error ? ` (${answer.error.code})` : ''}`)
}
const markdown = await readFile(EXAMPLES_FILE, 'utf8')
const blocks = (lang: string) => [...markdown.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((m) => m[1]!)

t.test('docs/examples.md is what npm run docs:examples generates', async (t) => {
  t.ok(markdown === (await examplesMarkdown()), 'docs/examples.md is up to date (run npm run docs:examples)')
})

// No name resolves: the single sign-on example's issuer is refused at once, never looked up on a network.
const app = await startTestApp(t, { resolver: async () => [] })
const document = (await app.call('/v1/openapi.json')).body
const routes = Object.entries(document.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`))
/** A capability call (a dry run quotes it); the team routes have POSTs of their own, which run (dry runs are for calls). */
const isCall = (route: string) =>
  route.startsWith('POST /v1/') && Boolean(document.paths[route.slice(5)].post.tags?.includes('capabilities'))
/** A request id of nobody: GET /v1/requests/$REQUESTID is a 404, as GET /v1/jobs/$ID is. */
const NO_REQUEST = 'req_01JNMQ6ZK3V7T5W8X9Y0A1B2C3'

t.test('every route has a curl and a Python example', async (t) => {
  for (const route of routes) t.ok(markdown.includes(`## ${route}\n`), route)
  t.equal(blocks('sh').length, routes.length + 1, 'one curl per route, plus the quickstart line')
  t.equal(blocks('python').length, routes.length + 1, 'one Python call per route, plus the helper')
})

/** The routes that read one thing by the id in $ID or $REQUESTID, which names nothing: 404. */
const ABOUT_NO_ONE = [
  'GET /v1/jobs/{id}',
  'GET /v1/jobs/{id}/deliveries',
  'GET /v1/requests/{requestId}',
  'GET /v1/webhook-endpoints/{id}',
  'GET /v1/events/{id}',
  'GET /v1/reviews/{id}',
  'GET /v1/batches/{id}',
  'GET /v1/batches/{id}/results',
]

t.test('the Python examples run (standard library only) and every capability example is a valid body', async (t) => {
  const c = await app.customer(10_000)
  const [helper, ...calls] = blocks('python')
  // Every call as a dry run: the helper's own headers argument, as the page says.
  const program = `${helper}\n_call = call\ncall = lambda path, body=None, headers=None, method=None: _call(path, body, {"Service-Dry-Run": "1"}, method)\n${calls.join('\n')}`
  const { stdout } = await run('python3', ['-c', program.replace(/^print\(/gm, 'print(json.dumps(').replace(/\)\)$/gm, ')))')], {
    env: { ...process.env, BASE: app.url, KEY: c.key, ID: '00000000-0000-4000-8000-000000000000', REQUESTID: NO_REQUEST },
  })
  const answers = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>)
  t.equal(answers.length, routes.length)
  for (const [i, answer] of answers.entries()) {
    const route = routes[i]!
    if (isCall(route)) accepted(t, answer, route)
    else if (ABOUT_NO_ONE.includes(route)) t.equal(answer.error.code, 'not_found', route)
    else if (route.startsWith('GET /v1/') && route !== 'GET /v1/sso') t.notOk(answer.error, route)
    // The team routes' changes run for real with the example bodies: an answer the document describes, never a 5xx.
    else t.notOk(/^(internal_error|service_unavailable)$/.test(answer.error?.code ?? ''), route)
  }
  await app.expectLedger(t, c.accountId, 10_000)
})

t.test('the curl examples run', async (t) => {
  const c = await app.customer(100)
  const curls = blocks('sh').slice(1)
  for (const [i, curl] of curls.entries()) {
    const command = curl.replace(/^curl -s /, "curl -s -H 'Service-Dry-Run: 1' ")
    const { stdout } = await run('bash', ['-c', command], {
      env: { ...process.env, BASE: app.url, KEY: c.key, ID: 'no-such-job', REQUESTID: NO_REQUEST },
    })
    const route = routes[i]!
    if (route === 'GET /v1/audit-log/export') {
      t.match(stdout, /^id,at,actor_type/, `${route}: CSV`)
      continue
    }
    if (route === 'GET /v1/usage/export') {
      t.match(stdout, /^"createdAt","requestId","endpoint"/, `${route}: CSV`)
      continue
    }
    const answer = JSON.parse(stdout) as Record<string, any>
    if (isCall(route)) accepted(t, answer, route)
    else t.ok(answer, route)
  }
  await app.expectLedger(t, c.accountId, 100)
})
