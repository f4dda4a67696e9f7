// A newcomer reads a capability's promises in its README (capabilities/README.md): every folder has one, with the
// answer rules JSON Schema cannot state.
import { existsSync, readFileSync } from 'node:fs'
import t from 'tap'
import { CAPABILITIES_ROOT, capabilityFolders } from '../../core/capability-folders.ts'

t.test('every capability folder has a README', async (t) => {
  t.ok(capabilityFolders(CAPABILITIES_ROOT).length > 0)
  for (const name of capabilityFolders(CAPABILITIES_ROOT)) {
    const file = new URL(`../../capabilities/${name}/README.md`, import.meta.url)
    if (!t.ok(existsSync(file), `capabilities/${name}/README.md exists`)) continue
    const text = readFileSync(file, 'utf8')
    t.match(text, /^# \S/, `${name}: starts with a title`)
    t.ok(text.length > 200, `${name}: says what it promises`)
  }
})
