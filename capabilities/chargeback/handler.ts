import { Type, type Static } from '@sinclair/typebox'
import { MText, NonBlank, clip, comparableText, oneLine, type CapabilityContext } from '../../core/capability.ts'
import { codeInText, lookup, lookupAny, type Category, type Network, type ReasonCode } from './codes.ts'
import { Action, CategorySchema, type Input, type Output } from './schema.ts'

const MAX_CHECKLIST = 30

/**
 * What the model is asked for, per call. `have` is not: for each checklist entry the model names the caller's
 * evidence items that provide it (indexes bounded by the evidence given; none when none was given), each with the
 * words of that item that show it, and code keeps a link only when the quote is in that item. Strict-mode safe.
 */
function chargebackAnswer(evidenceCount: number) {
  const Support = Type.Object(
    { evidenceIndex: Type.Integer({ minimum: 0, maximum: Math.max(evidenceCount - 1, 0) }), quote: NonBlank() },
    { additionalProperties: false },
  )
  return Type.Object(
    {
      reasonCategory: CategorySchema,
      reasonCode: MText,
      recommendedAction: Action,
      narrative: NonBlank(),
      evidenceChecklist: Type.Array(
        Type.Object({ item: NonBlank(), support: Type.Array(Support, { maxItems: evidenceCount }) }, { additionalProperties: false }),
        { minItems: 1, maxItems: MAX_CHECKLIST },
      ),
      winLikelihood: Type.Number({ minimum: 0, maximum: 1 }),
      rationale: NonBlank(),
    },
    { additionalProperties: false },
  )
}
type Answer = Static<ReturnType<typeof chargebackAnswer>>

/** Case, quote marks and whitespace aside: is `quote` (at least 3 characters of words) in `text`? */
function quotedIn(quote: string, text: string): boolean {
  const norm = comparableText
  const q = norm(quote).replace(/^["']|["']$/g, '')
  return q.replace(/[^\p{L}\p{N}]/gu, '').length >= 3 && norm(text).includes(q)
}

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const evidence = (input.evidence ?? []).map((e) => e.trim()).filter(Boolean)
  const tx = input.transaction
  const stated = codeInText(input.reason, input.network)
  const network = input.network ?? stated?.network
  const answer = await ctx.ai.object<Answer>({
    system: [
      'You are a chargeback representment specialist working for the merchant.',
      'Return JSON with exactly these fields:',
      '- reasonCategory: fraud, authorization, processing_error or consumer_dispute.',
      `- reasonCode: the ${network ? `${network} ` : ''}dispute reason code that fits (e.g. Visa "10.4", Mastercard "4853", Amex "C08", Discover "RG"), or null when unsure.`,
      '- recommendedAction: fight or accept (accept when the evidence cannot win or the cost of fighting exceeds the amount).',
      '- narrative: the representment letter to the issuer: factual, citing the evidence, no invented facts.',
      '- evidenceChecklist: the documents this reason code calls for. For each: item (what to provide) and support: one',
      '  {evidenceIndex, quote} per merchant evidence item below that provides it, quote copied word for word from that item',
      '  to show it does ([] when none does; evidence that contradicts the item, such as "never delivered" for proof of',
      '  delivery, does not provide it).',
      '- winLikelihood: 0 to 1, the chance the representment succeeds.',
      '- rationale: one or two sentences on why.',
    ].join('\n'),
    content: [
      `Dispute reason: ${input.reason}`,
      network ? `Card network: ${network}` : 'Card network: not given',
      stated ? `Stated reason code: ${stated.reason.code} (${stated.reason.description})` : '',
      `Transaction: ${JSON.stringify(tx)}`,
      evidence.length ? `Merchant evidence:\n${evidence.map((e, i) => `${i}. ${e}`).join('\n')}` : 'Merchant evidence: none supplied.',
      input.context ? `Context:\n${input.context}` : '',
    ]
      .filter(Boolean)
      .join('\n'),
    schema: chargebackAnswer(evidence.length),
  })

  // The reason code: the one the caller's reason states wins; else the model's, only when it is one of
  // the network's codes (with no network given: a code found in exactly one network's table).
  let code: { network: Network; reason: ReasonCode } | null = stated
  if (!code && answer.reasonCode !== null && !/^\s*n\/?a\s*$/i.test(answer.reasonCode)) {
    if (network) {
      const reason = lookup(network, answer.reasonCode)
      code = reason ? { network, reason } : null
    } else {
      code = lookupAny(answer.reasonCode)
    }
  }
  const reasonCategory: Category = code?.reason.category ?? answer.reasonCategory

  const narrative = answer.narrative.trim()
  const rationale = answer.rationale.trim()

  // `have` is true only when one of the caller's evidence items backs the entry: an in-range index whose quote
  // is really in that item (one link per item, in the caller's order). No evidence, nothing "had".
  const seen = new Set<string>()
  const evidenceChecklist = answer.evidenceChecklist
    .map((entry) => {
      const item = clip(oneLine(entry.item), 300)
      const links = new Map<number, string>()
      for (const s of entry.support) {
        const quote = oneLine(s.quote)
        if (!links.has(s.evidenceIndex) && quotedIn(quote, evidence[s.evidenceIndex]!)) {
          links.set(s.evidenceIndex, clip(quote, 1000))
        }
      }
      const matched = [...links].sort(([a], [b]) => a - b).map(([evidenceIndex, quote]) => ({ evidenceIndex, quote }))
      return { item, have: matched.length > 0, ...(matched.length ? { matchedEvidence: matched.slice(0, 20) } : {}) }
    })
    .filter((e) => !seen.has(e.item.toLowerCase()) && seen.add(e.item.toLowerCase()))

  const result: Output = {
    reasonCategory,
    reasonCode: code?.reason.code ?? null,
    recommendedAction: answer.recommendedAction,
    narrative: clip(narrative, 20_000),
    evidenceChecklist,
    winLikelihood: Math.round(answer.winLikelihood * 100) / 100,
    rationale: clip(rationale, 2000),
  }
  if (code) {
    result.reasonDescription = code.reason.description
    result.network = code.network
  } else if (network) {
    result.network = network
  }
  return result
}
