import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

// Each model call takes the next reply given to cap.reply(); the last one repeats.
const cap = await capabilityHarness(t, manifest)

const product = {
  name: 'Trailhead 2L Bottle',
  brand: 'Trailhead',
  features: 'Steel, cold 24 h',
  keywords: ['insulated bottle', 'Leak Proof'],
}
const five = ['COLD: 24 h', 'LEAK-PROOF: lid', 'FITS: cup holders', 'STEEL: food grade', 'BIG: 2 litres']
const good = {
  titles: ['Trailhead Insulated Bottle 2L'],
  bullets: five,
  description: 'Keeps drinks cold.',
  seoKeywords: ['water bottle', 'leak proof', 'hiking'],
}

t.test('amazon: 5 bullets, caller keywords first and deduplicated, charged 5', async (t) => {
  cap.reply({ ...good, bullets: five.map((b) => `• ${b}`) })
  const call = await cap.call({ product, channel: 'amazon' })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(res.body.bullets, five, 'bullet markers stripped')
  t.same(res.body.seoKeywords, ['insulated bottle', 'Leak Proof', 'water bottle', 'hiking'])
  t.equal(cap.prompts.length, 1)
  t.match(cap.prompts[0], 'exactly 5')
})

t.test('amazon: backend search terms fit 249 bytes', async (t) => {
  const many = Array.from({ length: 30 }, (_, i) => `keyword number ${i}`)
  cap.reply({ ...good, seoKeywords: many })
  const { res } = await cap.call({ product: { name: 'Bottle' }, channel: 'amazon' })
  t.equal(res.status, 200, res.text)
  t.ok(Buffer.byteLength(res.body.seoKeywords.join(' ')) <= 249)
  t.ok(res.body.seoKeywords.length > 5)
})

t.test('a first answer over the limits gets one repair round; what still breaks a limit fails', async (t) => {
  const long = `Trailhead ${'x'.repeat(200)}`
  cap.reply({ ...good, titles: [long], description: '<p>Cold</p>' }, good)
  let r = await cap.call({ product, channel: 'amazon' })
  t.equal(r.res.status, 200, r.res.text)
  t.same(r.res.body.titles, good.titles)
  t.equal(cap.prompts.length, 2, 'one repair call')
  t.match(cap.prompts[1], 'title 1 is 210 characters, over 200')
  t.match(cap.prompts[1], 'the description contains HTML')

  // After the repair, titles that still break a limit are dropped; others stay.
  cap.reply({ ...good, titles: [long] }, { ...good, titles: ['Trailhead Bottle!', 'Trailhead Bottle, 2L', long] })
  r = await cap.call({ product, channel: 'amazon' })
  t.equal(r.res.status, 200, r.res.text)
  t.same(r.res.body.titles, ['Trailhead Bottle, 2L'], '"!" and over-long titles dropped')

  const broken: Array<[string, unknown, string]> = [
    ['no title within limits', { ...good, titles: [long] }, 'amazon'],
    ['description too long', { ...good, description: 'x'.repeat(2001) }, 'amazon'],
    ['bullet too long', { ...good, bullets: [...five.slice(0, 4), 'y'.repeat(501)] }, 'amazon'],
    ['HTML in a bullet', { ...good, bullets: [...five.slice(0, 4), '<b>bold</b>'] }, 'amazon'],
    ['empty description', { ...good, description: '  ' }, 'shopify'],
    ['title over 255 on shopify', { ...good, titles: ['z'.repeat(256)] }, 'shopify'],
  ]
  for (const [name, answer, channel] of broken) {
    cap.reply(answer)
    await cap.expectRefused(t, { product, channel }, { status: 502, code: 'inference_failed', why: name })
    t.equal(cap.prompts.length, 2, `${name}: repaired once, then gave up`)
  }
})

t.test('amazon bullet count is enforced; a brand may contain forbidden characters', async (t) => {
  cap.reply({ ...good, bullets: five.slice(0, 4) })
  await cap.expectRefused(t, { product, channel: 'amazon' }, { status: 502, code: 'inference_failed', why: 'four bullets on amazon' })

  cap.reply({ ...good, titles: ['Yahoo! Bottle 2L'] })
  const r = await cap.call({ product: { ...product, brand: 'Yahoo!' }, channel: 'amazon' })
  t.equal(r.res.status, 200, r.res.text)
  t.same(r.res.body.titles, ['Yahoo! Bottle 2L'])
})

t.test('generic is the default channel: 3 to 7 bullets', async (t) => {
  cap.reply({ ...good, bullets: five.slice(0, 3) })
  const { res } = await cap.call({ product: { name: 'Bottle' } })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.bullets.length, 3)
  t.match(cap.prompts[0], 'copy for the \\"generic\\" channel', 'prompt JSON-escaped')
})

capabilitySuite(t, cap, {
  badInput: [
    ['no product', { channel: 'amazon' }],
    ['no name', { product: { features: 'x' } }],
    ['product as string', { product: 'Bottle' }],
    ['name too long', { product: { name: 'x'.repeat(201) } }],
    ['unknown channel', { product, channel: 'ebay' }],
    ['too many keywords', { product: { name: 'x', keywords: Array.from({ length: 51 }, (_, i) => `k${i}`) } }],
    ['keyword too long', { product: { name: 'x', keywords: ['k'.repeat(101)] } }],
    ['features too long', { product: { name: 'x', features: 'f'.repeat(10_001) } }],
    ['unknown field', { product, style: 'bold' }],
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  const fake = await cap.useFake({ text: () => good })
  const call = await cap.call({ product, channel: 'amazon' }, { funds: 12 })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    titles: good.titles,
    bullets: five,
    description: 'Keeps drinks cold.',
    seoKeywords: ['insulated bottle', 'Leak Proof', 'water bottle', 'hiking'],
    usage: { credits: 5, balanceRemaining: 7, livemode: true },
  })
  t.equal(fake.requests.length, 1)
})
