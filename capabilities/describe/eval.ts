// Eval cases for /v1/describe (scripts/eval.ts, scripts/eval-kit.ts).
import { contains, solidPng, type EvalCase } from '../../scripts/eval-kit.ts'

export const evalCases: EvalCase[] = [
  { name: 'red-square', request: { image: { data: solidPng(64, 64, [220, 20, 20]), mimeType: 'image/png' } }, checks: { 'says red': contains('', 'red') } },
  { name: 'blue-square-product', request: { image: { data: solidPng(96, 96, [20, 40, 220]), mimeType: 'image/png' }, purpose: 'product' }, checks: { 'says blue': contains('', 'blue') } },
  { name: 'green-banner-accessibility', request: { image: { data: solidPng(160, 40, [20, 180, 40]), mimeType: 'image/png' }, purpose: 'accessibility' }, checks: { 'says green': contains('altText', 'green') } },
]
