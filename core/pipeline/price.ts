// Price by size (issue 27): a capability's price for THIS input, measured before the hold, the one rule live
// calls, async acceptance and dry runs share. price + max(0, units − included) × perUnit, where units are the
// pages of the call's documents (read in the decoder pool) or the input's text in 1,000-token units (counted
// in the decoder pool too once bytes no longer bound it below the included size). Every read is for a Reader:
// the account's turn at the decoders, and for unpaid work (a dry run, a test key's call) its budget of decoder
// time; a live caller draws what its reads took when its call ends without a charge (sandbox.drawUnpaid).
import type { Static } from '@sinclair/typebox'
import { pageTexts } from '../documents/pages.ts'
import { refusalAt, resolveDocument, serverDocumentFetcher } from '../documents/resolve.ts'
import { DocumentRefusal } from '../documents/refusal.ts'
import { documentsOf, recordingDigest, type DocumentDigests } from '../documents/same-document.ts'
import type { Reader } from '../documents/sandbox.ts'
import type { DocumentInput, ResolvedDocument } from '../documents/schema.ts'
import { tokenBound } from '../models/tokens.ts'
import type { Capability } from '../run/registry.ts'
import type { Services } from '../services.ts'
import type { Size } from '../wallet/wallet.ts'

/**
 * What a call costs; `size` when its size raised the price; `documents` are the call's documents as measured,
 * for the handler to reuse; `digests` the SHA-256 of those read from a fileUrl, for a job to read the same
 * (documents/same-document.ts).
 */
export interface Quote {
  credits: number
  size?: Static<typeof Size>
  documents?: Map<DocumentInput, ResolvedDocument>
  digests?: DocumentDigests
}

/** A text page is priced per 3,000 characters begun (a dense printed page), so a long text without form feeds is not one page. */
export const CHARS_PER_TEXT_PAGE = 3000
/**
 * Tokens are counted with OpenAI's o200k encoding whatever model serves the call, so a quote does not change
 * with AI_ROUTES or a fallback.
 */
export const PRICE_TOKENIZER_MODEL = 'gpt-4o'

/** The rule in words, for the published document and the MCP tools: "10 credits, +1/page over 10". */
export function priceRule(cap: Pick<Capability, 'price' | 'size'>): string {
  const base = `${cap.price} credit${cap.price === 1 ? '' : 's'}`
  if (!cap.size) return base
  return `${base}, +${cap.size.perUnit}/${cap.size.unit === 'page' ? 'page' : '1k tokens'} over ${cap.size.included}`
}

export async function quoteCall(
  capability: Capability,
  input: Record<string, unknown>,
  services: Services,
  opts: { waitForDecoder: boolean; signal?: AbortSignal; reader: Reader },
): Promise<Quote> {
  const rule = capability.size
  if (!rule) return { credits: capability.price }
  // Within the included size the price is the flat one and nothing is reported (a token count there is only a bound).
  const priced = (units: number, documents?: Map<DocumentInput, ResolvedDocument>, digests?: DocumentDigests): Quote => ({
    credits: capability.price + Math.max(0, units - rule.included) * rule.perUnit,
    ...(units > rule.included ? { size: { units, ...rule } } : {}),
    ...(documents ? { documents } : {}),
    ...(digests && Object.keys(digests).length ? { digests } : {}),
  })
  if (rule.unit === '1k-tokens') {
    // Below the included size the exact count is not needed (and the tokenizer not loaded): bytes bound it.
    const text = stringsOf(input).join('\n')
    if (tokenBound(text, PRICE_TOKENIZER_MODEL) <= rule.included * 1000) return priced(rule.included)
    const task = { wait: opts.waitForDecoder, reader: opts.reader, ...(opts.signal ? { signal: opts.signal } : {}) }
    const [tokens] = await services.sandbox.countTokens([text], PRICE_TOKENIZER_MODEL, task).catch((e: unknown) => {
      throw e instanceof DocumentRefusal ? refusalAt(e, '') : e
    })
    return priced(Math.ceil(tokens! / 1000))
  }
  const fetch = serverDocumentFetcher(services)
  const documents = new Map<DocumentInput, ResolvedDocument>()
  const digests: DocumentDigests = {}
  let units = 0
  for (const { doc, at } of documentsOf(capability.request, input)) {
    const resolved = await resolveDocument(doc, {
      fetch: recordingDigest(fetch, (sha256) => (digests[at] = sha256)),
      sandbox: services.sandbox,
      waitForDecoder: opts.waitForDecoder,
      reader: opts.reader,
      at,
      ...(opts.signal ? { signal: opts.signal } : {}),
    })
    documents.set(doc, resolved)
    units += pagesOf(resolved)
  }
  return priced(units, documents, digests)
}

/** Priced pages: a PDF's (selected) pages, 1 for an image, a text's pages by form feeds and length. */
function pagesOf(doc: ResolvedDocument): number {
  if (doc.kind === 'pdf') return doc.selected?.length ?? doc.pages.length
  if (doc.kind === 'image') return 1
  const pages = pageTexts(doc)
  return (doc.selected ?? pages.map((_, i) => i + 1)).reduce(
    (n, p) => n + Math.max(1, Math.ceil(pages[p - 1]!.length / CHARS_PER_TEXT_PAGE)),
    0,
  )
}

/** Every string of the input, depth first: what reaches the model as text. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsOf)
  return []
}
