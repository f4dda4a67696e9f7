// The card networks' dispute reason codes, known to code: a reason code in an answer must be one of the
// requested network's, and its category is the network's, not the model's. Sources: Visa Claims
// Resolution (VCR) reason codes, Mastercard Chargeback Guide, American Express merchant regulations
// (chargeback reason codes), Discover Network dispute rules.

export type Network = 'visa' | 'mastercard' | 'amex' | 'discover'
export type Category = 'fraud' | 'authorization' | 'processing_error' | 'consumer_dispute'

export const NETWORKS: readonly Network[] = ['visa', 'mastercard', 'amex', 'discover']
export const CATEGORIES: readonly Category[] = ['fraud', 'authorization', 'processing_error', 'consumer_dispute']

export interface ReasonCode {
  code: string
  category: Category
  description: string
}

const table = (category: Category, rows: Array<[string, string]>): ReasonCode[] =>
  rows.map(([code, description]) => ({ code, category, description }))

export const REASON_CODES: Record<Network, ReasonCode[]> = {
  // VCR: 10.x fraud, 11.x authorization, 12.x processing errors, 13.x consumer disputes.
  visa: [
    ...table('fraud', [
      ['10.1', 'EMV Liability Shift Counterfeit Fraud'],
      ['10.2', 'EMV Liability Shift Non-Counterfeit Fraud'],
      ['10.3', 'Other Fraud – Card-Present Environment'],
      ['10.4', 'Other Fraud – Card-Absent Environment'],
      ['10.5', 'Visa Fraud Monitoring Program'],
    ]),
    ...table('authorization', [
      ['11.1', 'Card Recovery Bulletin'],
      ['11.2', 'Declined Authorization'],
      ['11.3', 'No Authorization'],
    ]),
    ...table('processing_error', [
      ['12.1', 'Late Presentment'],
      ['12.2', 'Incorrect Transaction Code'],
      ['12.3', 'Incorrect Currency'],
      ['12.4', 'Incorrect Account Number'],
      ['12.5', 'Incorrect Amount'],
      ['12.6.1', 'Duplicate Processing'],
      ['12.6.2', 'Paid by Other Means'],
      ['12.7', 'Invalid Data'],
    ]),
    ...table('consumer_dispute', [
      ['13.1', 'Merchandise/Services Not Received'],
      ['13.2', 'Cancelled Recurring Transaction'],
      ['13.3', 'Not as Described or Defective Merchandise/Services'],
      ['13.4', 'Counterfeit Merchandise'],
      ['13.5', 'Misrepresentation'],
      ['13.6', 'Credit Not Processed'],
      ['13.7', 'Cancelled Merchandise/Services'],
      ['13.8', 'Original Credit Transaction Not Accepted'],
      ['13.9', 'Non-Receipt of Cash or Load Transaction Value'],
    ]),
  ],
  mastercard: [
    ...table('fraud', [
      ['4837', 'No Cardholder Authorization'],
      ['4840', 'Fraudulent Processing of Transactions'],
      ['4849', 'Questionable Merchant Activity'],
      ['4862', 'Counterfeit Transaction Magnetic Stripe POS Fraud'],
      ['4863', 'Cardholder Does Not Recognize – Potential Fraud'],
      ['4870', 'Chip Liability Shift'],
      ['4871', 'Chip/PIN Liability Shift – Lost/Stolen/Never Received Issue (NRI) Fraud'],
    ]),
    ...table('authorization', [
      ['4807', 'Warning Bulletin File'],
      ['4808', 'Authorization-Related Chargeback'],
      ['4812', 'Account Number Not on File'],
    ]),
    ...table('processing_error', [
      ['4831', 'Transaction Amount Differs'],
      ['4834', 'Point-of-Interaction Error'],
      ['4842', 'Late Presentment'],
      ['4846', 'Correct Transaction Currency Code Not Provided'],
      ['4999', 'Domestic Chargeback Dispute (Europe Region only)'],
    ]),
    ...table('consumer_dispute', [
      ['4841', 'Cancelled Recurring or Digital Goods Transactions'],
      ['4853', 'Cardholder Dispute'],
      ['4854', 'Cardholder Dispute – Not Elsewhere Classified (U.S. Region only)'],
      ['4855', 'Goods or Services Not Provided'],
      ['4859', 'Addendum, No-show, or ATM Dispute'],
      ['4860', 'Credit Not Processed'],
    ]),
  ],
  // American Express: F (fraud), FR (fraud full recourse), A (authorization), P (processing), C (card member disputes).
  amex: [
    ...table('fraud', [
      ['F10', 'Missing Imprint'],
      ['F14', 'Missing Signature'],
      ['F24', 'No Card Member Authorization'],
      ['F29', 'Card Not Present'],
      ['F30', 'EMV Counterfeit'],
      ['F31', 'EMV Lost/Stolen/Non-Received'],
      ['FR2', 'Fraud Full Recourse Program'],
      ['FR4', 'Immediate Chargeback Program'],
      ['FR6', 'Partial Immediate Chargeback Program'],
    ]),
    ...table('authorization', [
      ['A01', 'Charge Amount Exceeds Authorization Amount'],
      ['A02', 'No Valid Authorization'],
      ['A08', 'Authorization Approval Expired'],
    ]),
    ...table('processing_error', [
      ['P01', 'Unassigned Card Number'],
      ['P03', 'Credit Processed as Charge'],
      ['P04', 'Charge Processed as Credit'],
      ['P05', 'Incorrect Charge Amount'],
      ['P07', 'Late Submission'],
      ['P08', 'Duplicate Charge'],
      ['P22', 'Non-Matching Card Number'],
      ['P23', 'Currency Discrepancy'],
    ]),
    ...table('consumer_dispute', [
      ['C02', 'Credit Not Processed'],
      ['C04', 'Goods/Services Returned or Refused'],
      ['C05', 'Goods/Services Cancelled'],
      ['C08', 'Goods/Services Not Received or Only Partially Received'],
      ['C14', 'Paid by Other Means'],
      ['C18', '"No Show" or CARDeposit Cancelled'],
      ['C28', 'Cancelled Recurring Billing'],
      ['C31', 'Goods/Services Not as Described'],
      ['C32', 'Goods/Services Damaged or Defective'],
    ]),
  ],
  discover: [
    ...table('fraud', [
      ['UA01', 'Fraud – Card Present Transaction'],
      ['UA02', 'Fraud – Card Not Present Transaction'],
      ['UA05', 'Fraud – Chip Counterfeit Transaction'],
      ['UA06', 'Fraud – Chip and PIN Transaction'],
      ['UA10', 'Request Transaction Receipt (Swiped Card Transactions)'],
      ['UA11', 'Cardholder Claims Fraud (Swiped Transaction, No Signature Obtained)'],
    ]),
    ...table('authorization', [
      ['AT', 'Authorization Noncompliance'],
      ['DA', 'Declined Authorization'],
      ['EX', 'Expired Card'],
      ['NA', 'No Authorization'],
    ]),
    ...table('processing_error', [
      ['AW', 'Altered Amount'],
      ['CD', 'Credit/Debit Posted Incorrectly'],
      ['DP', 'Duplicate Processing'],
      ['IC', 'Illegible Sales Data'],
      ['IN', 'Invalid Card Number'],
      ['LP', 'Late Presentation'],
    ]),
    ...table('consumer_dispute', [
      ['AA', 'Cardholder Does Not Recognize'],
      ['AP', 'Cancelled Recurring Billing'],
      ['CR', 'Cancelled Reservation'],
      ['NF', 'Non-Receipt of Cash from ATM'],
      ['PM', 'Paid by Other Means'],
      ['RG', 'Non-Receipt of Goods, Services or Cash'],
      ['RM', 'Cardholder Disputes Quality of Goods or Services'],
      ['RN2', 'Credit Not Received'],
    ]),
  ],
}

const BY_CODE: Record<Network, Map<string, ReasonCode>> = Object.fromEntries(
  NETWORKS.map((n) => [n, new Map(REASON_CODES[n].map((r) => [r.code, r]))]),
) as Record<Network, Map<string, ReasonCode>>

/** "Visa 10.4", "rc: ua-02", "4837 No Cardholder Authorization" → "10.4", "UA02", "4837"; "" when no code-shaped token leads. */
export function normalizeCode(raw: string): string {
  const s = raw
    .toUpperCase()
    .replace(/\b(VISA|VCR|MASTERCARD|MASTER CARD|MC|AMEX|AMERICAN EXPRESS|DISCOVER|REASON|CODE|RC)\b\.?/g, ' ')
    .replace(/^[\s:#(\-–]+/, '')
  const m = /^(\d{2}\.\d(?:\.\d)?|\d{4}|[A-Z]{1,2}[\s-]?\d{0,2})(?![A-Z0-9.])/.exec(s)
  return m ? m[1]!.replace(/[\s-]/g, '') : ''
}

/** The network's reason code for `raw`, or null when `raw` is not one of that network's codes. */
export function lookup(network: Network, raw: string): ReasonCode | null {
  return BY_CODE[network].get(normalizeCode(raw)) ?? null
}

/** A code looked up without a network: found in exactly one network's table, or nothing. */
export function lookupAny(raw: string): { network: Network; reason: ReasonCode } | null {
  const hits = NETWORKS.flatMap((network) => {
    const reason = lookup(network, raw)
    return reason ? [{ network, reason }] : []
  })
  return hits.length === 1 ? hits[0]! : null
}

/**
 * A reason code the caller's own `reason` text states, e.g. "Visa 10.4 – card-absent fraud" or
 * "Reason code RG". Numeric and letter-digit codes are recognised anywhere; Discover's two-letter codes
 * only after "code"/"reason", so that ordinary capitals ("IN", "PM") are not mistaken for codes.
 */
export function codeInText(text: string, network: Network | undefined): { network: Network; reason: ReasonCode } | null {
  const candidates: string[] = []
  for (const m of text.matchAll(/\b(1[0-3]\.\d(?:\.\d)?|4[89]\d\d|FR\d|[FACP]\d{2}|UA\d{2}|RN2)\b/gi)) candidates.push(m[1]!)
  for (const m of text.matchAll(/\b(?:reason(?:\s+code)?|code|rc)\s*[:#-]?\s*([A-Z]{2}\d?)\b/gi)) candidates.push(m[1]!)
  for (const c of candidates) {
    if (network) {
      const reason = lookup(network, c)
      if (reason) return { network, reason }
    } else {
      const hit = lookupAny(c)
      if (hit) return hit
    }
  }
  return null
}
