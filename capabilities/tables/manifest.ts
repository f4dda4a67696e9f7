import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Request, Result } from './schema.ts'

export default defineCapability({
  name: 'tables',
  summary: 'Every table in a document as headers and rows',
  price: 8,
  size: { unit: 'page', included: 10, perUnit: 1 },
  async: true,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'merge',
  request: Request,
  response: Result,
  example: {
    request: { text: 'Quarterly sales\nRegion | Q1 | Q2\nNorth | 120 | 135\nSouth | 98 | 110' },
    response: {
      tables: [
        {
          title: 'Quarterly sales',
          page: 1,
          headers: ['Region', 'Q1', 'Q2'],
          rows: [
            ['North', '120', '135'],
            ['South', '98', '110'],
          ],
        },
      ],
      tableCount: 1,
      pageCount: 1,
      warnings: [],
    },
  },
  handler,
})
