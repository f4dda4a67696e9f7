import { Type } from '@sinclair/typebox'
import { IMAGE_TYPES, loadMedia, oneLine, type CapabilityContext } from '../../core/capability.ts'
import { type PURPOSES, type Input, type Output } from './schema.ts'

const FOCUS: Record<(typeof PURPOSES)[number], string> = {
  alt: 'The image is for a web page: the alt text matters most. It says what a sighted reader gets from the image.',
  caption: 'The image is published with a caption: the caption matters most, one or two sentences a reader would see under it.',
  product:
    'The image shows a product for a shop listing: name the product type, colour, material and visible features; "detailed" is a product description a buyer can trust (only what is visible).',
  detailed: 'Describe the image thoroughly in "detailed": subjects, setting, composition, colours, visible text, and anything notable.',
}

// What the model is asked for: embeddedText is always answered ('' when none) so the model addresses it,
// and "detailed" is required exactly when the purpose calls for it.
function modelSchema(wantDetailed: boolean) {
  return Type.Object(
    {
      altText: Type.String({ minLength: 1, maxLength: 300 }),
      caption: Type.String({ minLength: 1, maxLength: 1000 }),
      ...(wantDetailed ? { detailed: Type.String({ minLength: 1, maxLength: 10_000 }) } : {}),
      tags: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 60 }),
      embeddedText: Type.String({ maxLength: 20_000 }),
    },
    { additionalProperties: false },
  )
}
const WITH_DETAILED = modelSchema(true)
const WITHOUT_DETAILED = modelSchema(false)

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const purpose = input.purpose ?? 'alt'
  const maxTags = input.maxTags ?? 10
  const wantDetailed = purpose === 'detailed' || purpose === 'product'
  const image = await loadMedia(
    { inline: input.image, url: input.imageUrl },
    { inlinePath: '/image', urlPath: '/imageUrl', accept: IMAGE_TYPES, what: 'image', expected: 'send a PNG, JPEG, GIF or WebP image' },
    ctx,
  )
  const answer = await ctx.ai.object<{ altText: string; caption: string; detailed?: string; tags: string[]; embeddedText: string }>({
    system: [
      'You describe one image for accessibility and publishing.',
      FOCUS[purpose],
      'altText: one line, at most 125 characters, no "image of" or "picture of"; describe, do not interpret.',
      'caption: one or two sentences.',
      wantDetailed ? 'detailed: several sentences.' : '',
      `tags: up to ${Math.max(maxTags, 1)} short lower-case keywords for search, most relevant first.`,
      'embeddedText: every piece of text visible in the image, verbatim, lines separated by newlines; an empty string when there is none.',
      'Only state what is visible. Do not identify real people by name.',
      input.context ? `Where the image is used: ${input.context}` : '',
    ]
      .filter(Boolean)
      .join('\n'),
    content: [
      { type: 'text', text: `Describe this image (purpose: ${purpose}).` },
      { type: 'image', image: image.bytes, mediaType: image.mediaType },
    ],
    schema: wantDetailed ? WITH_DETAILED : WITHOUT_DETAILED,
  })
  return shape(answer, { wantDetailed, maxTags })
}

/** Code guarantees: one-line alt text, tags trimmed/lower-cased/unique/capped, no empty optional fields. */
export function shape(
  answer: { altText: string; caption: string; detailed?: string; tags: string[]; embeddedText: string },
  opts: { wantDetailed: boolean; maxTags: number },
): Output {
  const tags = [...new Set(answer.tags.map((t) => oneLine(t).toLowerCase()).filter((t) => t !== ''))].slice(0, opts.maxTags)
  const result: Output = {
    altText: oneLine(answer.altText).slice(0, 300) || oneLine(answer.caption).slice(0, 300),
    caption: answer.caption.trim(),
    tags,
  }
  if (opts.wantDetailed && answer.detailed?.trim()) result.detailed = answer.detailed.trim()
  const embedded = answer.embeddedText.trim()
  if (embedded) result.embeddedText = embedded
  return result
}
