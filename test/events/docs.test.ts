// docs/events.md lists every event type with an example the published webhook schema of that type accepts, and
// the docs page serves and links it; the document's webhooks carry the same examples.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { EVENT_TYPE_NAMES } from '../../core/events/types.ts'
import { startTestApp } from '../helpers/app.ts'

t.test('every event type: a section with a valid example in docs/events.md and in the webhooks of the document', async (t) => {
  const app = await startTestApp(t)
  const page = readFileSync('docs/events.md', 'utf8')
  for (const type of EVENT_TYPE_NAMES) {
    const section = page.split(`### \`${type}\``)[1]?.split('\n### ')[0]
    if (!section) {
      t.fail(`docs/events.md has no section for ${type}`)
      continue
    }
    const example = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(section)![1]!)
    const check = app.contract.webhookSchema(type)
    t.ok(check(example), `${type}: the page's example matches the published schema ${JSON.stringify(check.errors)}`)
    const published = app.contract.doc.webhooks[type].post.requestBody.content['application/json'].example
    t.ok(check(published), `${type}: the document's example matches too`)
  }
  const served = await fetch(`${app.url}/docs/events.md`)
  t.equal(served.status, 200)
  t.match(await served.text(), /balance\.low/)
  t.match(await (await fetch(`${app.url}/docs`)).text(), /href="\/docs\/events\.md"/)
})
