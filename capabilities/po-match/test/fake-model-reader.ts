// A stand-in for the model in po-match's tests: reads the common layouts of the three documents of a three-way
// match into the extraction answer the model gives (the service itself never parses: the model reads any text).
// Forms it reads:
//   - JSON text: an object with a line array (lineItems, items, lines, products...) and optional
//     subtotal/tax/total/currency/poNumber, e.g. the output of /v1/invoice or /v1/receipt; or a bare array of lines.
//   - Plain text, one line item per line, e.g.
//       "Widget x 10 @ 2.50 = 25.00"     "10 x Widget @ $2.50"       "Widget × 8"
//       "Widget | 10 | 2.50 | 25.00"     (tab, |, ; or comma separated; a header row names the columns)
//       "Widget qty 10 price 2.50 amount 25.00"                      "Widget - 8 units received"
//       "Widget ........ $25.00"         (a trailing number with decimals or a currency sign is an amount)
//     and "Subtotal: ...", "Tax: ...", "Total: ...", "PO Number: ...", "Currency: EUR" lines.
// Amounts use "." for decimals ("1,234.50"); a bare trailing integer is read as a quantity.
import { toAmount } from '../../../core/capability.ts'
import type { ParsedDocument, ParsedLine } from '../match.ts'

const MAX_LINES = 500

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** `role` matters for one thing: only a purchase order's own `number`/`id` is read as a PO number. */
export function parseDocument(text: string, role: 'invoice' | 'purchaseOrder' | 'receipt' = 'invoice'): ParsedDocument {
  const trimmed = text.trim()
  if (/^[[{]/.test(trimmed)) {
    try {
      return fromJson(JSON.parse(trimmed), role)
    } catch {
      // Not JSON after all: read it as text.
    }
  }
  return fromText(trimmed)
}

// ---------- JSON ----------

const LINE_KEYS = ['lineItems', 'line_items', 'items', 'lines', 'products', 'entries', 'orderLines', 'order_lines']
const DESC_KEYS = ['description', 'name', 'item', 'product', 'title', 'itemName', 'item_name', 'productName', 'product_name']
const SKU_KEYS = ['sku', 'code', 'itemCode', 'item_code', 'partNumber', 'part_number', 'productCode', 'product_code', 'id']
const QTY_KEYS = [
  'quantity',
  'qty',
  'quantityReceived',
  'quantity_received',
  'received',
  'receivedQuantity',
  'quantityOrdered',
  'quantity_ordered',
  'ordered',
  'count',
  'units',
]
const PRICE_KEYS = ['unitPrice', 'unit_price', 'price', 'rate', 'unitCost', 'unit_cost', 'cost']
const AMOUNT_KEYS = [
  'amount',
  'lineTotal',
  'line_total',
  'total',
  'extendedPrice',
  'extended_price',
  'extended',
  'value',
  'lineAmount',
  'line_amount',
]
const SUBTOTAL_KEYS = ['subtotal', 'subTotal', 'sub_total', 'netAmount', 'net_amount', 'net']
const TAX_KEYS = ['tax', 'taxAmount', 'tax_amount', 'vat', 'gst', 'salesTax', 'sales_tax', 'totalTax', 'total_tax']
const TOTAL_KEYS = ['total', 'totalAmount', 'total_amount', 'grandTotal', 'grand_total', 'amountDue', 'amount_due', 'totalDue', 'total_due']
const PO_KEYS = [
  'poNumber',
  'po_number',
  'purchaseOrderNumber',
  'purchase_order_number',
  'purchaseOrder',
  'purchase_order',
  'po',
  'orderNumber',
  'order_number',
]

function pick(o: Record<string, unknown>, keys: string[]): unknown {
  const lower = new Map(Object.keys(o).map((k) => [k.toLowerCase(), k]))
  for (const k of keys) {
    const real = lower.get(k.toLowerCase())
    if (real !== undefined && o[real] !== null && o[real] !== undefined && o[real] !== '') return o[real]
  }
  return undefined
}

function num(v: unknown): number | null {
  return v === undefined ? null : toAmount(v)
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : null
}

/** The object that holds the document: itself, or one level down ({invoice: {...}}, {result: {...}}). */
function documentObject(o: Record<string, unknown>): Record<string, unknown> {
  if (pick(o, LINE_KEYS) !== undefined || pick(o, TOTAL_KEYS) !== undefined) return o
  for (const v of Object.values(o)) if (isObj(v) && (pick(v, LINE_KEYS) !== undefined || pick(v, TOTAL_KEYS) !== undefined)) return v
  return o
}

function fromJson(value: unknown, role: string): ParsedDocument {
  const doc: ParsedDocument = { lines: [], subtotal: null, tax: null, total: null, currency: null, poNumber: null }
  let rows: unknown[] = []
  if (Array.isArray(value)) rows = value
  else if (isObj(value)) {
    const o = documentObject(value)
    const found = pick(o, LINE_KEYS)
    if (Array.isArray(found)) rows = found
    doc.subtotal = num(pick(o, SUBTOTAL_KEYS))
    doc.tax = num(pick(o, TAX_KEYS))
    const total = pick(o, TOTAL_KEYS)
    doc.total = isObj(total) ? num(pick(total, ['amount', 'value'])) : num(total)
    const currency = str(pick(o, ['currency', 'currencyCode', 'currency_code']))
    doc.currency = currency && /^[A-Za-z]{3}$/.test(currency) ? currency.toUpperCase() : null
    const po = pick(o, PO_KEYS)
    doc.poNumber = isObj(po) ? str(pick(po, ['number', 'id'])) : str(po)
    if (!doc.poNumber && role === 'purchaseOrder') doc.poNumber = str(pick(o, ['number', 'id']))
  } else {
    throw new Error('not a document')
  }
  for (const row of rows.slice(0, MAX_LINES)) {
    if (typeof row === 'string') {
      const line = textLine(row)
      if (line) doc.lines.push(line)
      continue
    }
    if (!isObj(row)) continue
    const sku = str(pick(row, SKU_KEYS))
    const description = str(pick(row, DESC_KEYS)) ?? sku
    if (!description) continue
    doc.lines.push({
      description,
      sku,
      quantity: num(pick(row, QTY_KEYS)),
      unitPrice: num(pick(row, PRICE_KEYS)),
      amount: num(pick(row, AMOUNT_KEYS)),
    })
  }
  return doc
}

// ---------- text ----------

const NUM = String.raw`[-+]?(?:[$€£¥]\s?)?\d[\d,]*(?:\.\d+)?`
const UNIT = String.raw`(?:\s*(?:units?|pcs?\.?|pieces?|ea\.?|each|items?|boxes|box|cases?|hrs?|hours?|kg|lbs?|m))?`
const PER = String.raw`(?:\s*(?:/\s*[a-z]+|each|ea\.?|per\s+[a-z]+))?`
const EQ = String.raw`\s*(?:=|:|->|→)?\s*`
const X = String.raw`\s*(?:x|×|\*)\s*`
const AT = String.raw`\s*(?:@|at)\s*`

const PATTERNS: Array<{ re: RegExp; map: (m: RegExpExecArray) => Omit<ParsedLine, 'sku'> }> = [
  // Widget x 10 @ 2.50 = 25.00
  {
    re: new RegExp(String.raw`^(.+?)${X}(${NUM})${UNIT}${AT}(${NUM})${PER}(?:${EQ}(${NUM}))?$`, 'i'),
    map: (m) => ({ description: m[1]!, quantity: toAmount(m[2]), unitPrice: toAmount(m[3]), amount: m[4] ? toAmount(m[4]) : null }),
  },
  // 10 x Widget @ 2.50 = 25.00
  {
    re: new RegExp(String.raw`^(${NUM})${UNIT}${X}(.+?)${AT}(${NUM})${PER}(?:${EQ}(${NUM}))?$`, 'i'),
    map: (m) => ({ description: m[2]!, quantity: toAmount(m[1]), unitPrice: toAmount(m[3]), amount: m[4] ? toAmount(m[4]) : null }),
  },
  // Widget 10 @ 2.50 = 25.00 / Consulting 10 hrs @ 150/hr = 1500.00
  {
    re: new RegExp(String.raw`^(.*?[a-z].*?)\s+(${NUM})${UNIT}${AT}(${NUM})${PER}(?:${EQ}(${NUM}))?$`, 'i'),
    map: (m) => ({ description: m[1]!, quantity: toAmount(m[2]), unitPrice: toAmount(m[3]), amount: m[4] ? toAmount(m[4]) : null }),
  },
  // Widget x 10 (= 25.00)
  {
    re: new RegExp(String.raw`^(.*?[a-z].*?)${X}(${NUM})${UNIT}(?:\s*(?:=|:|->|→)\s*(${NUM}))?$`, 'i'),
    map: (m) => ({ description: m[1]!, quantity: toAmount(m[2]), unitPrice: null, amount: m[3] ? toAmount(m[3]) : null }),
  },
  // 10 x Widget (= 25.00)
  {
    re: new RegExp(String.raw`^(${NUM})${UNIT}${X}(.*?[a-z].*?)(?:\s*(?:=|:|->|→)\s*(${NUM}))?$`, 'i'),
    map: (m) => ({ description: m[2]!, quantity: toAmount(m[1]), unitPrice: null, amount: m[3] ? toAmount(m[3]) : null }),
  },
  // Widget - 8 units received / Widget: 8 pcs
  {
    re: new RegExp(
      String.raw`^(.*?[a-z].*?)\s*[:\-–]?\s*(\d[\d,]*(?:\.\d+)?)\s*(?:units?|pcs?\.?|pieces?|ea\.?|items?|boxes|cases?)(?:\s+(?:received|delivered|shipped|ordered))?\.?$`,
      'i',
    ),
    map: (m) => ({ description: m[1]!, quantity: toAmount(m[2]), unitPrice: null, amount: null }),
  },
  // Widget - 8 received
  {
    re: /^(.*?[a-z].*?)\s*[:\-–]?\s*(\d[\d,]*(?:\.\d+)?)\s+(?:received|delivered|shipped)\.?$/i,
    map: (m) => ({ description: m[1]!, quantity: toAmount(m[2]), unitPrice: null, amount: null }),
  },
]

const KEYWORDS = {
  quantity: /\b(?:qty|quantity|units|received|ordered)\b\.?\s*[:=]?\s*(NUM)/i,
  unitPrice: /\b(?:unit\s*price|unit\s*cost|price|rate|cost)\b\s*[:=]?\s*(NUM)/i,
  amount: /\b(?:amount|line\s*total|ext(?:ended)?(?:\s*price)?|total)\b\s*[:=]?\s*(NUM)/i,
}
const kw = Object.fromEntries(Object.entries(KEYWORDS).map(([k, re]) => [k, new RegExp(re.source.replace('NUM', NUM), 'i')])) as Record<
  keyof typeof KEYWORDS,
  RegExp
>

const META =
  /^(?:invoice|inv\b|bill(?:ed)?\s+to|ship(?:ped)?\s+to|sold\s+to|remit|vendor|supplier|customer|buyer|date|due|terms|payment|account|acct|phone|tel|fax|e-?mail|page|ref(?:erence)?|attn|address|order\s+date|delivery\s+date|received\s+by|signed|approved|goods\s+receip?t|goods\s+received|grn\b|delivery\s+note|packing\s+(?:slip|list)|receiving\s+report)\b/i
const PO_LINE = /\b(?:p\.?\s?o\.?|purchase\s+order)\s*(?:number|num|no\.?|#)?\s*[:#-]?\s*([A-Z0-9][A-Z0-9/-]{1,40})/i

function money(s: string | undefined): number | null {
  if (!s) return null
  const all = s.match(new RegExp(NUM, 'g'))
  return all ? toAmount(all[all.length - 1]) : null
}

function cleanDescription(s: string): string {
  return s
    .replace(/^\s*(?:[-*•·]|\d{1,3}[.)])\s+/, '')
    .replace(/[\s.:\-–,|]+$/, '')
    .replace(/\s+/g, ' ')
    .trim()
}

/** One text line as a line item, or null. */
export function textLine(raw: string): ParsedLine | null {
  return patternLine(raw) ?? fallbackLine(raw)
}

function stripBullet(raw: string): string {
  return raw.replace(/^\s*(?:[-*•·]|\d{1,3}[.)])\s+(?=\S)/, '').trim()
}

/** The explicit forms: "x"/"@" notation and keywords. */
function patternLine(raw: string): ParsedLine | null {
  const s = stripBullet(raw)
  if (!s || !/[a-z]/i.test(s) || !/\d/.test(s)) return null
  for (const p of PATTERNS) {
    const m = p.re.exec(s)
    if (m) return finish(p.map(m))
  }
  // Keyword style: "Widget qty 10 price 2.50 amount 25.00"
  const q = kw.quantity.exec(s)
  const u = kw.unitPrice.exec(s)
  const a = kw.amount.exec(s)
  if (q || u || a) {
    const first = Math.min(...[q, u, a].filter((m): m is RegExpExecArray => m !== null).map((m) => m.index))
    const description = s.slice(0, first)
    if (/[a-z]/i.test(description)) {
      return finish({
        description,
        quantity: q ? toAmount(q[1]) : null,
        unitPrice: u ? toAmount(u[1]) : null,
        amount: a ? toAmount(a[1]) : null,
      })
    }
  }
  return null
}

/** A description and one trailing number: money when it has decimals or a currency sign, else a quantity. */
function fallbackLine(raw: string): ParsedLine | null {
  const s = stripBullet(raw)
  if (!s || !/[a-z]/i.test(s) || !/\d/.test(s)) return null
  const t = new RegExp(String.raw`^(.*?[a-z].*?)[\s.:\-–]+((?:[$€£¥]\s?)?-?\d[\d,]*\.\d{1,2}|[$€£¥]\s?-?\d[\d,]*)$`, 'i').exec(s)
  if (t) return finish({ description: t[1]!, quantity: null, unitPrice: null, amount: toAmount(t[2]) })
  const n = /^(.*?[a-z][^#]*?)[\s:\-–]+(\d{1,6})$/i.exec(s)
  if (n) return finish({ description: n[1]!, quantity: Number(n[2]), unitPrice: null, amount: null })
  return null
}

function finish(l: Omit<ParsedLine, 'sku'>): ParsedLine | null {
  const description = cleanDescription(l.description)
  if (!description || !/[a-z]/i.test(description)) return null
  return { ...l, description, sku: skuOf(description) }
}

/** A part number in a description: letters and digits together, or joined by - _ / (e.g. WGT-100, AB12). */
function skuOf(description: string): string | null {
  const m = /\b(?=[A-Z0-9\-_/]*\d)(?=[A-Z0-9\-_/]*[A-Z])[A-Z0-9]+(?:[-_/][A-Z0-9]+)*\b/.exec(description)
  return m && m[0].length >= 3 ? m[0].replace(/[-_/]/g, '').toUpperCase() : null
}

const SPLIT = /\t|\s*\|\s*|\s*;\s*|\s{2,}|,(?!\d{3}(?:\D|$))/
const HEADER = {
  description: /^(?:desc(?:ription)?|item|product|name|article|goods|service)s?\b/i,
  sku: /^(?:sku|code|part(?:\s*(?:no|number|#))?|item\s*(?:no|code|#))\b/i,
  quantity: /^(?:qty|quantity|units|received|ordered|count)\b/i,
  unitPrice: /^(?:unit\s*price|price|rate|unit\s*cost|cost|each)\b/i,
  amount: /^(?:amount|total|line\s*total|ext(?:ended)?|value|net)\b/i,
}
type Column = keyof typeof HEADER

function headerOf(cells: string[]): Array<Column | null> | null {
  if (cells.length < 2 || cells.some((c) => /\d/.test(c) && !/#|no\.?$/i.test(c))) return null
  const cols = cells.map((c) => (Object.keys(HEADER) as Column[]).find((k) => HEADER[k].test(c.trim())) ?? null)
  return cols.filter(Boolean).length >= 2 && cols.some((c) => c === 'quantity' || c === 'unitPrice' || c === 'amount') ? cols : null
}

function delimitedLine(cells: string[], header: Array<Column | null> | null): ParsedLine | null {
  if (header) {
    const get = (k: Column) => {
      const i = header.indexOf(k)
      return i >= 0 ? cells[i] : undefined
    }
    const description = get('description') ?? get('sku')
    if (!description) return null
    const line = finish({
      description,
      quantity: toAmount(get('quantity')),
      unitPrice: toAmount(get('unitPrice')),
      amount: toAmount(get('amount')),
    })
    if (line && get('sku'))
      line.sku = get('sku')!
        .replace(/[-_/\s]/g, '')
        .toUpperCase()
    return line
  }
  const text = cells.filter((c) => toAmount(c) === null)
  const nums = cells.map((c) => toAmount(c)).filter((n): n is number => n !== null)
  // One number alone is left to fallbackLine (money or quantity by its form).
  if (text.length === 0 || nums.length < 2 || nums.length > 3) return null
  const [a, b, c] = nums
  // Without a header: qty | price | amount, qty | price, or qty.
  return finish({ description: text.join(' '), quantity: a ?? null, unitPrice: b ?? null, amount: c ?? null })
}

function fromText(text: string): ParsedDocument {
  const doc: ParsedDocument = { lines: [], subtotal: null, tax: null, total: null, currency: null, poNumber: null }
  let header: Array<Column | null> | null = null
  for (const raw of text.split(/\r?\n/)) {
    const s = raw.trim()
    if (!s) continue
    const currency =
      /\b(?:currency)\s*[:=]?\s*([A-Z]{3})\b/i.exec(s) ??
      /(?:^|\s)(USD|EUR|GBP|CAD|AUD|NZD|CHF|JPY|CNY|INR|SEK|NOK|DKK|PLN|MXN|BRL|ZAR|SGD|HKD)\b/.exec(s)
    if (currency && !doc.currency) doc.currency = currency[1]!.toUpperCase()
    if (!doc.currency && s.includes('€')) doc.currency = 'EUR'
    if (!doc.currency && s.includes('£')) doc.currency = 'GBP'
    const po = PO_LINE.exec(s)
    if (po && /\d/.test(po[1]!) && !doc.poNumber) {
      doc.poNumber = po[1]!
      continue
    }
    let m = /^(?:sub\s*-?\s*total|net(?:\s+amount)?)\b(.*)$/i.exec(s)
    if (m) {
      doc.subtotal = money(m[1]) ?? doc.subtotal
      continue
    }
    m = /^(?:(?:sales\s+)?tax|vat|gst|hst)\b(.*)$/i.exec(s)
    if (m) {
      doc.tax = money(m[1]) ?? doc.tax
      continue
    }
    m = /^(?:grand\s+total|total(?:\s+(?:due|amount|payable))?|amount\s+(?:due|payable)|balance\s+due)\b(.*)$/i.exec(s)
    if (m) {
      doc.total = money(m[1]) ?? doc.total
      continue
    }
    if (META.test(s)) continue
    const cells = s
      .split(SPLIT)
      .map((c) => c.trim())
      .filter(Boolean)
    if (cells.length >= 2) {
      const h = headerOf(cells)
      if (h) {
        header = h
        continue
      }
    }
    let line: ParsedLine | null = null
    // A table with a header: the columns say what each number is.
    if (header && cells.length === header.length) line = delimitedLine(cells, header)
    line ??= patternLine(s) ?? (cells.length >= 2 ? delimitedLine(cells, null) : null) ?? fallbackLine(s)
    if (line) doc.lines.push(line)
    if (doc.lines.length >= MAX_LINES) break
  }
  return doc
}
