// Code's half of a three-way match: which lines are the same item, what differs by how much, and the
// status that follows. The model may only propose pairs for lines code could not pair, and write the advice.
import { sum } from '../../core/capability.ts'

/** One line item as the model read it: every number the document states, null where it states none. */
export interface ParsedLine {
  description: string
  sku: string | null
  quantity: number | null
  unitPrice: number | null
  amount: number | null
}

/** One document as the model read it. */
export interface ParsedDocument {
  lines: ParsedLine[]
  subtotal: number | null
  tax: number | null
  total: number | null
  currency: string | null
  /** The PO number the document carries: its own (a PO) or the one it references (an invoice). */
  poNumber: string | null
}

export type Severity = 'low' | 'medium' | 'high'
export type Status = 'matched' | 'partial' | 'mismatched'
type Against = 'purchaseOrder' | 'receipt' | 'calculation'
type Value = number | string | null

export interface Discrepancy {
  field: string
  item?: string
  against: Against
  invoice: Value
  purchaseOrder: Value
  receipt: Value
  difference?: number
  differencePct?: number
  severity: Severity
  note: string
}

/** Pairs of line indexes: invoice line → other document's line. */
export type Pairs = Map<number, number>

// ---------- pairing ----------

const STOP = new Set([
  'the',
  'a',
  'an',
  'of',
  'and',
  'for',
  'with',
  'x',
  'pc',
  'pcs',
  'unit',
  'units',
  'ea',
  'each',
  'item',
  'items',
  'qty',
])

function words(description: string): Set<string> {
  return new Set(
    description
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w && !STOP.has(w))
      .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w)),
  )
}

/** 1 for the same part number or the same words; 0 for different part numbers; else the word overlap (Jaccard). */
export function similarity(a: ParsedLine, b: ParsedLine): number {
  if (a.sku && b.sku) return a.sku === b.sku ? 1 : 0
  const wa = words(a.description)
  const wb = words(b.description)
  if (wa.size === 0 || wb.size === 0) return 0
  let common = 0
  for (const w of wa) if (wb.has(w)) common++
  return common / (wa.size + wb.size - common)
}

const PAIR_THRESHOLD = 0.5

/** Greedy best-first pairing above the threshold; each line is used at most once. */
export function pairLines(invoice: ParsedLine[], other: ParsedLine[]): Pairs {
  const candidates: Array<[number, number, number]> = []
  invoice.forEach((a, i) =>
    other.forEach((b, j) => {
      const s = similarity(a, b)
      if (s >= PAIR_THRESHOLD) candidates.push([s, i, j])
    }),
  )
  candidates.sort((x, y) => y[0] - x[0] || x[1] - y[1] || x[2] - y[2])
  const pairs: Pairs = new Map()
  const used = new Set<number>()
  for (const [, i, j] of candidates) {
    if (pairs.has(i) || used.has(j)) continue
    pairs.set(i, j)
    used.add(j)
  }
  return pairs
}

/** Adds the model's proposed pairs that are in range and use lines still free; returns how many were taken. */
export function addPairs(pairs: Pairs, proposed: Array<[number, number]>, invoiceCount: number, otherCount: number): number {
  const used = new Set(pairs.values())
  let added = 0
  for (const [i, j] of proposed) {
    if (!Number.isInteger(i) || !Number.isInteger(j) || i < 0 || j < 0 || i >= invoiceCount || j >= otherCount) continue
    if (pairs.has(i) || used.has(j)) continue
    pairs.set(i, j)
    used.add(j)
    added++
  }
  return added
}

// ---------- comparing ----------

const cents = (n: number) => Math.round(n * 100) / 100
const round = (n: number) => Math.round(n * 1e6) / 1e6

export function lineAmount(l: ParsedLine): number | null {
  return l.amount ?? (l.quantity !== null && l.unitPrice !== null ? cents(l.quantity * l.unitPrice) : null)
}

function linesSum(d: ParsedDocument): number | null {
  if (d.lines.length === 0) return null
  const amounts = d.lines.map(lineAmount)
  return amounts.some((a) => a === null) ? null : sum(amounts)
}

/** Pre-tax amount: the stated subtotal, else the sum of the lines, else the total of a document without tax. */
function subtotalOf(d: ParsedDocument): number | null {
  return d.subtotal ?? linesSum(d) ?? (d.tax === null ? d.total : null)
}

function normalizePo(po: string): string {
  return po
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .replace(/^PO/, '')
}

/**
 * Severity (README): a difference within `tolerancePct` of the reference value is low; beyond it, an invoice
 * that asks for more (more units, a higher price, an item not ordered or not received) is high, and one that
 * asks for less (a partial or under-billed invoice) is medium.
 */
function severityOf(difference: number, reference: number | null, tolerancePct: number, money: boolean): Severity {
  const slack = reference === null ? 0 : (Math.abs(reference) * tolerancePct) / 100
  if (Math.abs(difference) <= slack + (money ? 0.005 : 1e-9)) return 'low'
  return difference > 0 ? 'high' : 'medium'
}

/** Any high → mismatched; else any medium → partial; else (none, or only within tolerance) → matched. */
export function statusOf(discrepancies: Discrepancy[]): Status {
  if (discrepancies.some((d) => d.severity === 'high')) return 'mismatched'
  if (discrepancies.some((d) => d.severity === 'medium')) return 'partial'
  return 'matched'
}

const fmt = (n: number, money: boolean) => (money ? n.toFixed(2) : String(round(n)))
const signed = (n: number, money: boolean) => (n > 0 ? '+' : '') + fmt(n, money)

interface MatchInput {
  invoice: ParsedDocument
  purchaseOrder: ParsedDocument
  receipt: ParsedDocument | null
  poPairs: Pairs
  receiptPairs: Pairs
  tolerancePct: number
}

export function compareDocuments(m: MatchInput): Discrepancy[] {
  const out: Discrepancy[] = []
  const numeric = numericCheck(out, m.tolerancePct)
  checkArithmetic(m.invoice, numeric)
  checkReferences(m.invoice, m.purchaseOrder, out)
  checkLinesAgainstOrder(m, numeric, out)
  checkTotalsAgainstOrder(m.invoice, m.purchaseOrder, numeric)
  checkReceipt(m, numeric, out)
  return out
}

/** One numeric comparison: invoice value against a reference value (a document's, or code's arithmetic). */
type Numeric = (
  d: { field: string; item?: string; against: Against; money: boolean; purchaseOrder?: number | null; receipt?: number | null },
  invoiceValue: number | null,
  reference: number | null,
  describe: (diff: string, pct: string) => string,
) => void

/** The numeric comparison, adding its discrepancy (if any) to `out`. */
function numericCheck(out: Discrepancy[], tolerancePct: number): Numeric {
  const tol = ` Within the ${tolerancePct}% tolerance.`
  return (d, invoiceValue, reference, describe) => {
    if (invoiceValue === null || reference === null) return
    const difference = d.money ? cents(invoiceValue - reference) : round(invoiceValue - reference)
    if (Math.abs(difference) < (d.money ? (d.against === 'calculation' ? 0.011 : 0.005) : 1e-9)) return
    const severity = severityOf(difference, reference, tolerancePct, d.money)
    const differencePct = reference !== 0 ? Math.round((difference / Math.abs(reference)) * 10_000) / 100 : undefined
    const pct = differencePct !== undefined ? `, ${differencePct > 0 ? '+' : ''}${differencePct}%` : ''
    out.push({
      field: d.field,
      ...(d.item ? { item: d.item } : {}),
      against: d.against,
      invoice: invoiceValue,
      purchaseOrder: d.purchaseOrder ?? null,
      receipt: d.receipt ?? null,
      difference,
      ...(differencePct !== undefined ? { differencePct } : {}),
      severity,
      note: describe(signed(difference, d.money), pct) + (severity === 'low' ? tol : ''),
    })
  }
}

/** The invoice's own arithmetic. */
function checkArithmetic(inv: ParsedDocument, numeric: Numeric): void {
  inv.lines.forEach((l) => {
    if (l.quantity === null || l.unitPrice === null || l.amount === null) return
    const computed = cents(l.quantity * l.unitPrice)
    numeric(
      { field: 'amount', item: l.description, against: 'calculation', money: true },
      l.amount,
      computed,
      (d) =>
        `Invoice line "${l.description}": ${fmt(l.quantity!, false)} × ${fmt(l.unitPrice!, true)} = ${fmt(computed, true)}, but the line states ${fmt(l.amount!, true)} (${d}).`,
    )
  })
  const invLines = linesSum(inv)
  if (inv.subtotal !== null && invLines !== null) {
    numeric(
      { field: 'subtotal', against: 'calculation', money: true },
      inv.subtotal,
      invLines,
      (d) => `The invoice lines add up to ${fmt(invLines, true)}; the invoice states a subtotal of ${fmt(inv.subtotal!, true)} (${d}).`,
    )
  }
  const invSub = inv.subtotal ?? invLines
  if (inv.total !== null && invSub !== null) {
    const expected = sum([invSub, inv.tax])
    numeric(
      { field: 'total', against: 'calculation', money: true },
      inv.total,
      expected,
      (d) =>
        `Subtotal ${fmt(invSub, true)}${inv.tax !== null ? ` + tax ${fmt(inv.tax, true)}` : ''} = ${fmt(expected, true)}; the invoice states a total of ${fmt(inv.total!, true)} (${d}).`,
    )
  }
}

/** The references: purchase order number and currency, against the purchase order. */
function checkReferences(inv: ParsedDocument, po: ParsedDocument, out: Discrepancy[]): void {
  const invPo = inv.poNumber
  const poNo = po.poNumber
  if (invPo && poNo) {
    if (normalizePo(invPo) !== normalizePo(poNo)) {
      out.push({
        field: 'poNumber',
        against: 'purchaseOrder',
        invoice: invPo,
        purchaseOrder: poNo,
        receipt: null,
        severity: 'high',
        note: `The invoice references purchase order ${invPo}; the purchase order given is ${poNo}.`,
      })
    }
  }
  if (inv.currency && po.currency) {
    if (inv.currency !== po.currency) {
      out.push({
        field: 'currency',
        against: 'purchaseOrder',
        invoice: inv.currency,
        purchaseOrder: po.currency,
        receipt: null,
        severity: 'high',
        note: `The invoice is in ${inv.currency}; the purchase order is in ${po.currency}.`,
      })
    }
  }
}

/** Line by line against the purchase order: quantity, unit price, amount; lines on one side only. */
function checkLinesAgainstOrder(m: MatchInput, numeric: Numeric, out: Discrepancy[]): void {
  const { invoice: inv, purchaseOrder: po } = m
  if (inv.lines.length && po.lines.length) {
    inv.lines.forEach((l, i) => {
      const j = m.poPairs.get(i)
      if (j === undefined) {
        const amount = lineAmount(l)
        const money = amount !== null
        const value = amount ?? l.quantity
        out.push({
          field: money ? 'amount' : 'quantity',
          item: l.description,
          against: 'purchaseOrder',
          invoice: value,
          purchaseOrder: null,
          receipt: null,
          ...(value !== null ? { difference: value } : {}),
          severity: 'high',
          note: `"${l.description}" is billed${value !== null ? ` (${fmt(value, money)})` : ''} but is not on the purchase order.`,
        })
        return
      }
      const p = po.lines[j]!
      numeric(
        { field: 'quantity', item: l.description, against: 'purchaseOrder', money: false, purchaseOrder: p.quantity },
        l.quantity,
        p.quantity,
        (d, pct) =>
          `The invoice bills ${fmt(l.quantity!, false)} of "${l.description}"; the purchase order has ${fmt(p.quantity!, false)} (${d}${pct}).`,
      )
      numeric(
        { field: 'unitPrice', item: l.description, against: 'purchaseOrder', money: true, purchaseOrder: p.unitPrice },
        l.unitPrice,
        p.unitPrice,
        (d, pct) =>
          `The unit price of "${l.description}" is ${fmt(l.unitPrice!, true)} on the invoice and ${fmt(p.unitPrice!, true)} on the purchase order (${d}${pct}).`,
      )
      const a = lineAmount(l)
      const b = lineAmount(p)
      numeric(
        { field: 'amount', item: l.description, against: 'purchaseOrder', money: true, purchaseOrder: b },
        a,
        b,
        (d, pct) =>
          `The line amount of "${l.description}" is ${fmt(a!, true)} on the invoice and ${fmt(b!, true)} on the purchase order (${d}${pct}).`,
      )
    })
    const paired = new Set(m.poPairs.values())
    po.lines.forEach((p, j) => {
      if (paired.has(j)) return
      const amount = lineAmount(p)
      const money = amount !== null
      const value = amount ?? p.quantity
      out.push({
        field: money ? 'amount' : 'quantity',
        item: p.description,
        against: 'purchaseOrder',
        invoice: null,
        purchaseOrder: value,
        receipt: null,
        ...(value !== null ? { difference: -value } : {}),
        severity: 'medium',
        note: `"${p.description}" is on the purchase order${value !== null ? ` (${fmt(value, money)})` : ''} but is not billed.`,
      })
    })
  }
}

/** Document totals against the purchase order (like with like: pre-tax, tax, and totals when both state tax). */
function checkTotalsAgainstOrder(inv: ParsedDocument, po: ParsedDocument, numeric: Numeric): void {
  const invSubtotal = subtotalOf(inv)
  const poSubtotal = subtotalOf(po)
  numeric(
    { field: 'subtotal', against: 'purchaseOrder', money: true, purchaseOrder: poSubtotal },
    invSubtotal,
    poSubtotal,
    (d, pct) => `The invoice subtotal is ${fmt(invSubtotal!, true)}; the purchase order comes to ${fmt(poSubtotal!, true)} (${d}${pct}).`,
  )
  if (inv.tax !== null && po.tax !== null) {
    numeric(
      { field: 'tax', against: 'purchaseOrder', money: true, purchaseOrder: po.tax },
      inv.tax,
      po.tax,
      (d, pct) => `The invoice tax is ${fmt(inv.tax!, true)}; the purchase order has ${fmt(po.tax!, true)} (${d}${pct}).`,
    )
    if (inv.total !== null && po.total !== null) {
      numeric(
        { field: 'total', against: 'purchaseOrder', money: true, purchaseOrder: po.total },
        inv.total,
        po.total,
        (d, pct) => `The invoice total is ${fmt(inv.total!, true)}; the purchase order total is ${fmt(po.total!, true)} (${d}${pct}).`,
      )
    }
  }
}

/** Against the receipt: what was received, by quantity. */
function checkReceipt(m: MatchInput, numeric: Numeric, out: Discrepancy[]): void {
  const { invoice: inv, purchaseOrder: po, receipt: rec } = m
  if (rec && inv.lines.length && rec.lines.length) {
    inv.lines.forEach((l, i) => {
      const k = m.receiptPairs.get(i)
      if (k === undefined) {
        out.push({
          field: 'quantity',
          item: l.description,
          against: 'receipt',
          invoice: l.quantity,
          purchaseOrder: null,
          receipt: null,
          ...(l.quantity !== null ? { difference: l.quantity } : {}),
          severity: 'high',
          note: `"${l.description}" is billed${l.quantity !== null ? ` (${fmt(l.quantity, false)})` : ''} but is not on the receipt.`,
        })
        return
      }
      const r = rec.lines[k]!
      const j = m.poPairs.get(i)
      const ordered = j !== undefined ? po.lines[j]!.quantity : null
      numeric(
        { field: 'quantity', item: l.description, against: 'receipt', money: false, purchaseOrder: ordered, receipt: r.quantity },
        l.quantity,
        r.quantity,
        (d, pct) =>
          `The invoice bills ${fmt(l.quantity!, false)} of "${l.description}"; ${fmt(r.quantity!, false)} were received (${d}${pct}).`,
      )
    })
    const paired = new Set(m.receiptPairs.values())
    rec.lines.forEach((r, k) => {
      if (paired.has(k)) return
      out.push({
        field: 'quantity',
        item: r.description,
        against: 'receipt',
        invoice: null,
        purchaseOrder: null,
        receipt: r.quantity,
        ...(r.quantity !== null ? { difference: -r.quantity } : {}),
        severity: 'medium',
        note: `"${r.description}" was received${r.quantity !== null ? ` (${fmt(r.quantity, false)})` : ''} but is not billed.`,
      })
    })
  }
}
