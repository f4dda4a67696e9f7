// A newcomer reads a capability's promises in its README (capabilities/README.md): every folder has one, titled
// with its endpoint, with the answer rules JSON Schema cannot state.
import { existsSync, readFileSync } from 'node:fs'
import t from 'tap'
import { CAPABILITY_FOLDERS } from '../helpers/capability-folders.ts'

t.test('every capability folder has a README that names its endpoint', async (t) => {
  t.ok(CAPABILITY_FOLDERS.length > 0)
  for (const name of CAPABILITY_FOLDERS) {
    const file = new URL(`../../capabilities/${name}/README.md`, import.meta.url)
    if (!t.ok(existsSync(file), `capabilities/${name}/README.md exists`)) continue
    const text = readFileSync(file, 'utf8')
    const title = text.split('\n')[0] ?? ''
    t.match(title, new RegExp(`^# (/v1/)?${name}\\b`), `${name}: titled with its endpoint`)
    t.ok(text.length > 200, `${name}: says what it promises`)
  }
})
