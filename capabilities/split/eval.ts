// Eval fixtures for /v1/split (scripts/eval.ts): the 3-page bundle of devkit/fixtures/documents.ts with its known split.
import { pdf } from '../../devkit/eval-kit.ts'
import { bundle, invoice1, receipt1 } from '../../devkit/fixtures/documents.ts'

const file = (name: string) => ({ file: pdf(name) })

// `summary` is free text: not part of the expectation.
const expected = { documentCount: bundle.documents.length, pageCount: bundle.pageCount, unassignedPages: [], documents: bundle.documents }

export const evalCases = [
  { name: 'split-bundle-pdf', request: file('bundle'), expected },
  { name: 'split-bundle-text-formfeeds', request: { text: bundle.toPages().join('\f') }, expected },
  {
    name: 'split-invoice-and-receipt',
    request: { text: [invoice1.toText(), receipt1.toText()].join('\f') },
    expected: { documentCount: 2, pageCount: 2, unassignedPages: [] },
  },
]
