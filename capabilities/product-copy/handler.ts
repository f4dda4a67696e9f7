import { Type, type TSchema } from '@sinclair/typebox'
import { ApiError, NonBlank, distinctTexts, oneLine, type CapabilityContext } from '../../core/capability.ts'
import { CHANNELS, type Input, type Output } from './schema.ts'

type Channel = (typeof CHANNELS)[number]

interface Rules {
  titleMax: number
  titles: number
  bulletsMin: number
  bulletsMax: number
  bulletMax: number
  descriptionMax: number
  /** Characters a title must not contain (outside the brand name). */
  titleForbidden: RegExp | null
  /** Amazon's backend search terms: the keywords joined by spaces must fit in this many bytes. */
  keywordBytes: number | null
  keywordsMax: number
  note: string
}

// The channel limits code enforces (README.md). Amazon: title ≤ 200 characters without ! $ ? _ { } ^ ¬ ¦,
// exactly 5 bullet points of ≤ 500 characters, description ≤ 2,000 characters, no HTML, backend search terms
// ≤ 249 bytes. Shopify: product title ≤ 255 characters. The rest are this API's own sane bounds.
const RULES: Record<Channel, Rules> = {
  amazon: {
    titleMax: 200,
    titles: 3,
    bulletsMin: 5,
    bulletsMax: 5,
    bulletMax: 500,
    descriptionMax: 2000,
    titleForbidden: /[!$?_{}^¬¦]/,
    keywordBytes: 249,
    keywordsMax: 50,
    note: 'Amazon listing: titles start with the brand, then product type and key attributes; bullets start with a short capitalised benefit; plain text only (no HTML, no emojis, no promotional claims like "best seller" or "free shipping").',
  },
  shopify: {
    titleMax: 255,
    titles: 3,
    bulletsMin: 3,
    bulletsMax: 7,
    bulletMax: 500,
    descriptionMax: 5000,
    titleForbidden: null,
    keywordBytes: null,
    keywordsMax: 20,
    note: 'Shopify product page: a clear product title; the description may be plain text with short paragraphs (no HTML).',
  },
  generic: {
    titleMax: 200,
    titles: 3,
    bulletsMin: 3,
    bulletsMax: 7,
    bulletMax: 500,
    descriptionMax: 5000,
    titleForbidden: null,
    keywordBytes: null,
    keywordsMax: 20,
    note: 'A general product page or marketplace listing; plain text, no HTML.',
  },
}

interface ModelAnswer {
  titles: string[]
  bullets: string[]
  description: string
  seoKeywords: string[]
}

// Strict-structured-output friendly (all properties required, no string length keywords); one schema per
// channel, built once (Ajv caches compiled schemas by object identity).
const schemas: Record<Channel, TSchema> = Object.fromEntries(
  CHANNELS.map((c): [Channel, TSchema] => [
    c,
    Type.Object(
      {
        titles: Type.Array(Type.String(), { minItems: 1, maxItems: 5 }),
        bullets: Type.Array(NonBlank(), { minItems: RULES[c].bulletsMin, maxItems: RULES[c].bulletsMax }),
        description: Type.String(),
        seoKeywords: Type.Array(Type.String(), { maxItems: 30 }),
      },
      { additionalProperties: false },
    ),
  ]),
) as Record<Channel, TSchema>

const HTML = /<\/?[a-z][^>]*>/i
const stripBullet = (s: string) => oneLine(s).replace(/^(?:[-*•·▪►✓✔]|\d+[.)])\s+/, '')

/**
 * The model writes; code enforces the channel's limits (RULES). A first answer that breaks a limit gets one
 * repair round with the problems listed. After that, titles that still break a limit are dropped (they are
 * alternatives); a bullet or description that still breaks one, or no title left, is a failed call (free).
 * seoKeywords always include the caller's keywords first, deduplicated, and fit the channel's budget.
 */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const channel: Channel = input.channel ?? 'generic'
  const rules = RULES[channel]
  const brand = input.product.brand?.trim() || undefined
  const system = [
    `You write e-commerce product copy for the "${channel}" channel.`,
    rules.note,
    `Return ${rules.titles} alternative "titles", best first, each at most ${rules.titleMax} characters${rules.titleForbidden ? ' and without the characters ! $ ? _ { } ^ ¬ ¦' : ''}.`,
    rules.bulletsMin === rules.bulletsMax
      ? `Return exactly ${rules.bulletsMin} "bullets", each at most ${rules.bulletMax} characters (aim for under 250).`
      : `Return ${rules.bulletsMin} to ${rules.bulletsMax} "bullets", each at most ${rules.bulletMax} characters (aim for under 200).`,
    `"description": at most ${rules.descriptionMax} characters, plain text.`,
    rules.keywordBytes
      ? `"seoKeywords": search terms shoppers would type, not repeating words from the title; all together at most ${rules.keywordBytes} bytes.`
      : '"seoKeywords": up to 20 search phrases shoppers would type, most important first.',
    'Use only facts from the product input: never invent specifications, certifications, awards or prices.',
    input.voice ? `Brand voice: ${input.voice}` : '',
  ]
    .filter(Boolean)
    .join('\n')
  const p = input.product
  const content = [
    `Product name: ${p.name}`,
    brand ? `Brand: ${brand}` : '',
    p.features ? `Features:\n${p.features}` : '',
    p.audience ? `Audience: ${p.audience}` : '',
    p.keywords?.length ? `Keywords to target: ${p.keywords.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('\n')

  let answer = await ctx.ai.object<ModelAnswer>({ schema: schemas[channel], system, content })
  let problems = findProblems(answer, rules, brand)
  if (problems.length) {
    answer = await ctx.ai.object<ModelAnswer>({
      schema: schemas[channel],
      system,
      content: `${content}\n\nYour previous answer:\n${JSON.stringify(answer)}\n\nIt breaks these rules:\n${problems.map((x) => `- ${x}`).join('\n')}\nAnswer again with every rule met.`,
    })
    problems = findProblems(answer, rules, brand).filter((x) => !x.startsWith('title'))
    if (problems.length)
      throw new ApiError('inference_failed', `The model's copy breaks the ${channel} limits: ${problems.join('; ')}. Nothing was charged.`)
  }
  const titles = distinctTexts(answer.titles.map(oneLine).filter((t) => t && !titleProblem(t, rules, brand))).slice(0, 5)
  if (!titles.length) throw new ApiError('inference_failed', `The model wrote no title within the ${channel} limits. Nothing was charged.`)
  return {
    titles,
    bullets: answer.bullets.map(stripBullet),
    description: answer.description.trim(),
    seoKeywords: keywords([...(p.keywords ?? []), ...answer.seoKeywords], rules, p.keywords?.length ?? 0),
  }
}

function titleProblem(title: string, rules: Rules, brand: string | undefined): string | null {
  if (title.length > rules.titleMax) return `is ${title.length} characters, over ${rules.titleMax}`
  if (HTML.test(title)) return 'contains HTML'
  const outsideBrand = brand ? title.split(brand).join('') : title
  if (rules.titleForbidden?.test(outsideBrand)) return `contains a character not allowed (${outsideBrand.match(rules.titleForbidden)![0]})`
  return null
}

function findProblems(a: ModelAnswer, rules: Rules, brand: string | undefined): string[] {
  const out: string[] = []
  a.titles.forEach((t, i) => {
    const why = oneLine(t) ? titleProblem(oneLine(t), rules, brand) : 'is empty'
    if (why) out.push(`title ${i + 1} ${why}`)
  })
  if (a.bullets.length < rules.bulletsMin || a.bullets.length > rules.bulletsMax) {
    out.push(
      `there are ${a.bullets.length} bullets, the channel needs ${rules.bulletsMin === rules.bulletsMax ? rules.bulletsMin : `${rules.bulletsMin} to ${rules.bulletsMax}`}`,
    )
  }
  a.bullets.forEach((b, i) => {
    const s = stripBullet(b)
    if (!s) out.push(`bullet ${i + 1} is empty`)
    else if (s.length > rules.bulletMax) out.push(`bullet ${i + 1} is ${s.length} characters, over ${rules.bulletMax}`)
    else if (HTML.test(s)) out.push(`bullet ${i + 1} contains HTML`)
  })
  const d = a.description.trim()
  if (!d) out.push('the description is empty')
  else if (d.length > rules.descriptionMax) out.push(`the description is ${d.length} characters, over ${rules.descriptionMax}`)
  else if (HTML.test(d)) out.push('the description contains HTML')
  return out
}

/** Caller's keywords first, then the model's; trimmed, deduplicated, within the channel's budget. */
export function keywords(all: string[], rules: Rules, callerCount: number): string[] {
  const out: string[] = []
  let bytes = -1
  for (const k of distinctTexts(all.map(oneLine).filter((k) => k && k.length <= 100))) {
    if (out.length >= 50) break
    if (rules.keywordBytes !== null) {
      const next = bytes + 1 + Buffer.byteLength(k)
      if (next > rules.keywordBytes) continue
      bytes = next
    } else if (out.length >= Math.max(rules.keywordsMax, Math.min(callerCount, 50))) break
    out.push(k)
  }
  return out
}
