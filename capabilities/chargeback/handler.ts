import { Type, type Static } from '@sinclair/typebox'
import type { CapabilityContext } from '../../core/capability.ts'
import { ApiError } from '../../core/errors.ts'
import { clip, StringEnum } from '../../core/models/answers.ts'
import { CATEGORIES, NETWORKS, codeInText, lookup, lookupAny, type Category, type Network, type ReasonCode } from './codes.ts'
import type { ChargebackResult } from './manifest.ts'

interface Input {
  reason: string
  transaction: { amount?: number; currency?: string; date?: string; descriptor?: string }
  evidence?: string[]
  context?: string
  network?: Network
}

type Result = Static<typeof ChargebackResult>

export const CategorySchema = StringEnum(CATEGORIES)
export const NetworkSchema = StringEnum(NETWORKS)
export const Action = StringEnum(['fight', 'accept'] as const)

/**
 * What the model is asked for. `have` is not: the model says which of the caller's numbered evidence
 * items back each checklist entry, and code decides. Strict-mode safe (all required, no lengths).
 */
export const ChargebackAnswer = Type.Object(
  {
    reasonCategory: CategorySchema,
    reasonCode: Type.Union([Type.String(), Type.Null()]),
    recommendedAction: Action,
    narrative: Type.String(),
    evidenceChecklist: Type.Array(
      Type.Object({ item: Type.String(), evidenceIndexes: Type.Array(Type.Integer()) }, { additionalProperties: false }),
    ),
    winLikelihood: Type.Number({ minimum: 0, maximum: 1 }),
    rationale: Type.String(),
  },
  { additionalProperties: false },
)
type Answer = Static<typeof ChargebackAnswer>

/**
 * Kinds of representment evidence, recognised by words. Code links a checklist entry to a piece of the
 * caller's evidence, even when the model did not, when the evidence is of every kind the entry names
 * ("signed proof of delivery" needs both a signature and delivery; a bare tracking number is not enough).
 */
export const EVIDENCE_KINDS: Array<[string, RegExp]> = [
  ['delivery', /\b(track(ing)?|deliver(y|ed)|proof of delivery|shipp(ing|ed)|carrier|ups|fedex|usps|dhl)\b/i],
  ['signature', /\b(signature|signed)\b/i],
  ['avs/cvv', /\b(avs|address verification|cvv2?|cvc2?|cid|security code)\b/i],
  ['3-d secure', /(3-?d\s?secure|\b3ds\d?\b|verified by visa|securecode|identity check|safekey|protectbuy)/i],
  ['ip/device', /\b(ip address|ip\b|device (id|fingerprint)|geolocation)/i],
  ['communication', /\b(e-?mails?|correspondence|communications?|chat (log|transcript)s?|messages?)\b/i],
  ['policy', /\b(polic(y|ies)|terms( of (service|sale))?|t&cs?)\b/i],
  ['receipt', /\b(receipts?|invoices?|order confirmations?)\b/i],
  ['usage', /\b(log-?ins?|usage|download(s|ed)?|access logs?|account activity)\b/i],
  ['history', /\b(prior|previous|past|undisputed) (orders?|transactions?|purchases?)\b/i],
  ['refund', /\b(refund(ed)? (issued|processed|given)|credit (issued|processed|memo))\b/i],
  ['authorization', /\b(authori[sz]ation (code|approval|record)|approval code|auth code)\b/i],
  ['photos', /\b(photos?|photographs?|pictures?)\b/i],
]

function kinds(text: string): Set<string> {
  return new Set(EVIDENCE_KINDS.filter(([, re]) => re.test(text)).map(([k]) => k))
}

export async function handler(input: Input, ctx: CapabilityContext): Promise<Result> {
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
      '- evidenceChecklist: the documents this reason code calls for. For each: item (what to provide) and evidenceIndexes',
      '  (the numbers of the merchant evidence below that provide it; [] when none does).',
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
    schema: ChargebackAnswer,
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
  if (!narrative) throw new ApiError('inference_failed', 'The model wrote no representment narrative.')
  if (!rationale) throw new ApiError('inference_failed', 'The model gave no rationale.')

  // `have` is true only when one of the caller's evidence items backs the entry: an index the model gave
  // that is in range, or an item of the entry's kinds by code's own reading. No evidence, nothing "had".
  const evidenceKinds = evidence.map(kinds)
  const seen = new Set<string>()
  const evidenceChecklist = answer.evidenceChecklist
    .map((entry) => {
      const item = clip(entry.item.trim().replace(/\s+/g, ' '), 300)
      const linked = new Set(entry.evidenceIndexes.filter((i) => Number.isInteger(i) && i >= 0 && i < evidence.length))
      const itemKinds = kinds(item)
      evidenceKinds.forEach((k, i) => {
        if (itemKinds.size > 0 && [...itemKinds].every((kind) => k.has(kind))) linked.add(i)
      })
      const matched = [...linked].sort((a, b) => a - b).map((i) => clip(evidence[i]!, 1000))
      return { item, have: matched.length > 0, ...(matched.length ? { matchedEvidence: matched.slice(0, 20) } : {}) }
    })
    .filter((e) => e.item && !seen.has(e.item.toLowerCase()) && seen.add(e.item.toLowerCase()))
    .slice(0, 30)
  if (evidenceChecklist.length === 0) throw new ApiError('inference_failed', 'The model gave no evidence checklist.')

  const result: Result = {
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

