// The dashboard's templates are TypeScript tagged templates: every interpolated value is HTML-escaped
// unless it is already Html (the output of another template), so escaping cannot be forgotten.
export class Html {
  readonly value: string
  constructor(value: string) {
    this.value = value
  }
  toString(): string {
    return this.value
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c]!)
}

function render(value: unknown): string {
  if (value instanceof Html) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || value === false) return ''
  return escapeHtml(value)
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!
  return new Html(out)
}

/** Markup built by code from numbers only (the usage chart); never pass user input. */
export function trusted(markup: string): Html {
  return new Html(markup)
}
