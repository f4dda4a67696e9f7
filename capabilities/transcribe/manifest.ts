import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'transcribe',
  summary: 'Audio to text with speakers and paragraph timestamps',
  price: 10,
  async: false,
  ratePerMinute: 60,
  model: 'transcription',
  // Shipped paused (spec 3.2, C10); config has the last word: `paused: { transcribe: false }` resumes it.
  paused: true,
  request: Request,
  response: Result,
  example: {
    request: { audioUrl: 'https://example.com/standup.mp3', diarize: true, language: 'en' },
    response: {
      text: 'Morning everyone. The release is on track.',
      segments: [
        { speaker: 'A', start: '00:00', end: '00:02', startSec: 0, endSec: 2.1, text: 'Morning everyone.' },
        { speaker: 'B', start: '00:02', end: '00:05', startSec: 2.1, endSec: 5.4, text: 'The release is on track.' },
      ],
      language: 'en',
      durationSec: 5.4,
      diarized: true,
    },
  },
  handler,
})
