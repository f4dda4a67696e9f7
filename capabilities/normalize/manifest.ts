import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'normalize',
  summary: 'Clean a batch of records, with a change log',
  price: 5,
  async: false,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  request: Request,
  response: Result,
  example: {
    request: {
      records: [
        { name: 'ACME gmbh', phone: '030 1234567', country: 'germany' },
        { name: 'Globex Ltd.', phone: '+44 20 7946 0958', country: 'UK' },
      ],
      instructions: 'Phones in E.164, countries as ISO 3166 alpha-2.',
    },
    response: {
      records: [
        { name: 'ACME GmbH', phone: '+49301234567', country: 'DE' },
        { name: 'Globex Ltd.', phone: '+442079460958', country: 'GB' },
      ],
      changes: [
        { index: 0, field: 'name', from: 'ACME gmbh', to: 'ACME GmbH', reason: 'Legal form capitalised.' },
        { index: 0, field: 'phone', from: '030 1234567', to: '+49301234567', reason: 'E.164 with the German country code.' },
        { index: 0, field: 'country', from: 'germany', to: 'DE' },
        { index: 1, field: 'phone', from: '+44 20 7946 0958', to: '+442079460958' },
        { index: 1, field: 'country', from: 'UK', to: 'GB', reason: 'ISO 3166 code of the United Kingdom is GB.' },
      ],
    },
  },
  handler,
})
