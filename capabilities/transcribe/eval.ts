// Eval cases for /v1/transcribe (scripts/eval.ts, devkit/eval-kit.ts). The endpoint ships paused: run with
// PAUSED_ENDPOINTS='{"transcribe": false}'. Recordings are generated tones (no speech): code can score the
// measured duration and that no speech is invented.
import { makeWav } from '../../devkit/fake-openai.ts'
import { between, count, type EvalCase } from '../../devkit/eval-kit.ts'

const wav = (seconds: number) => ({ audio: { data: makeWav(seconds).toString('base64'), mimeType: 'audio/wav' } })
export const evalCases: EvalCase[] = [
  { name: 'one-second-tone', request: wav(1), checks: { 'about 1 s': between('durationSec', 0.5, 1.5) } },
  {
    name: 'three-second-tone',
    request: wav(3),
    checks: { 'about 3 s': between('durationSec', 2.5, 3.5), 'no invented speech': count('segments[]', 0, 1) },
  },
  {
    name: 'diarize-tone',
    request: { ...wav(2), diarize: true, language: 'en' },
    checks: { 'about 2 s': between('durationSec', 1.5, 2.5) },
  },
]
