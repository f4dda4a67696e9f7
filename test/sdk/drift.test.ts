// The committed sdk/ is exactly what `npm run sdk` generates from the manifests today: a capability, price or
// schema change without regenerating fails here.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { generateSdk } from '../../scripts/generate-sdk.ts'

t.test('regenerating the SDK reproduces the committed sdk/ byte for byte', async (t) => {
  const out = await mkdtemp(path.join(tmpdir(), 'sdk-drift-'))
  t.teardown(() => rm(out, { recursive: true, force: true }))
  await generateSdk(out)
  for (const dir of ['src', 'dist']) {
    const fresh = (await readdir(path.join(out, dir))).sort()
    t.same((await readdir(path.join('sdk', dir))).sort(), fresh, `sdk/${dir} has the generated files`)
    for (const file of fresh) {
      const committed = await readFile(path.join('sdk', dir, file), 'utf8')
      t.ok(committed === (await readFile(path.join(out, dir, file), 'utf8')), `sdk/${dir}/${file} is up to date (run npm run sdk)`)
    }
  }
})
