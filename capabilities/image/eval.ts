// Eval cases for /v1/image (scripts/eval.ts, devkit/eval-kit.ts): what code can measure about an image.
import { within, type EvalCase } from '../../devkit/eval-kit.ts'

const image = { 'an image type': within('mimeType', ['image/png', 'image/jpeg', 'image/webp', 'image/gif']) }
export const evalCases: EvalCase[] = [
  { name: 'square', request: { prompt: 'A red apple on a white table' }, expected: { aspectRatio: '1:1' }, checks: image },
  {
    name: 'wide-is-3-2',
    request: { prompt: 'A lighthouse at dawn', style: 'watercolor', aspectRatio: '16:9' },
    expected: { aspectRatio: '3:2', size: '1536x1024' },
    checks: image,
  },
  {
    name: 'portrait',
    request: { prompt: 'A tall glass of orange juice', aspectRatio: '9:16' },
    expected: { aspectRatio: '2:3', size: '1024x1536' },
    checks: image,
  },
]
