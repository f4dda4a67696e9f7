// The project's own Markdown (docs/*.md) as an HTML page for /docs: headings, paragraphs, lists, tables, fenced
// code, quotes, inline code, bold, italics and links — what these files use, nothing more. Every character of
// the source is escaped before any markup is added, so a document cannot inject HTML into the page.
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/** A link between the docs stays in /docs; one to another file of the repository is left as written. */
function href(target: string): string {
  const doc = /^(?:\.\/|docs\/|\.\.\/docs\/)?([a-z-]+\.md)(#[\w-]*)?$/.exec(target)
  return doc ? `/docs/${doc[1]}${doc[2] ?? ''}` : target
}

function inline(text: string): string {
  // Code spans first, kept aside so nothing inside them is read as markup.
  const spans: string[] = []
  let out = escape(text).replace(/`([^`]+)`/g, (_, code: string) => `\u0000${spans.push(`<code>${code}</code>`) - 1}\u0000`)
  out = out
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, label: string, target: string) => `<a href="${href(target)}">${label}</a>`)
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>')
  // eslint-disable-next-line no-control-regex -- the placeholders set above
  return out.replace(/\u0000(\d+)\u0000/g, (_, i: string) => spans[Number(i)]!)
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/\s+/g, '-')

const cells = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => inline(c.trim().replace(/\\\|/g, '|')))

export function markdownToHtml(source: string): string {
  const lines = source.replace(/\r\n?/g, '\n').split('\n')
  const out: string[] = []
  let i = 0
  const isBlockStart = (l: string) => /^(#{1,6} |```|\s*[-*] |\s*\d+\. |>|\|)/.test(l)
  while (i < lines.length) {
    const line = lines[i]!
    if (!line.trim()) {
      i++
      continue
    }
    const fence = /^```(\w*)/.exec(line)
    if (fence) {
      const code: string[] = []
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) code.push(lines[i]!)
      i++
      out.push(`<pre><code${fence[1] ? ` class="language-${fence[1]}"` : ''}>${escape(code.join('\n'))}</code></pre>`)
      continue
    }
    const heading = /^(#{1,6}) (.*)$/.exec(line)
    if (heading) {
      const level = heading[1]!.length
      const text = inline(heading[2]!)
      out.push(`<h${level} id="${slug(text)}">${text}</h${level}>`)
      i++
      continue
    }
    if (line.startsWith('|')) {
      const rows: string[] = []
      for (; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(lines[i]!)
      const [head, , ...body] = rows
      out.push(
        `<table><thead><tr>${cells(head!)
          .map((c) => `<th>${c}</th>`)
          .join('')}</tr></thead><tbody>${body
          .map(
            (r) =>
              `<tr>${cells(r)
                .map((c) => `<td>${c}</td>`)
                .join('')}</tr>`,
          )
          .join('')}</tbody></table>`,
      )
      continue
    }
    if (line.startsWith('>')) {
      const quote: string[] = []
      for (; i < lines.length && lines[i]!.startsWith('>'); i++) quote.push(lines[i]!.replace(/^> ?/, ''))
      out.push(`<blockquote>${markdownToHtml(quote.join('\n'))}</blockquote>`)
      continue
    }
    const item = /^(\s*)([-*]|\d+\.) /.exec(line)
    if (item) {
      const ordered = /\d/.test(item[2]!)
      const items: string[] = []
      for (; i < lines.length; i++) {
        const l = lines[i]!
        const next = /^\s*(?:[-*]|\d+\.) (.*)$/.exec(l)
        if (next) items.push(next[1]!)
        else if (l.trim() && /^\s+/.test(l) && items.length) items[items.length - 1] += ` ${l.trim()}`
        else break
      }
      const tag = ordered ? 'ol' : 'ul'
      out.push(`<${tag}>${items.map((t) => `<li>${inline(t)}</li>`).join('')}</${tag}>`)
      continue
    }
    const paragraph: string[] = []
    for (; i < lines.length && lines[i]!.trim() && !(paragraph.length && isBlockStart(lines[i]!)); i++) paragraph.push(lines[i]!.trim())
    out.push(`<p>${inline(paragraph.join(' '))}</p>`)
  }
  return out.join('\n')
}

/** A whole page: the document's first heading as its title, a link back to the reference. */
export function markdownPage(source: string): string {
  const title = /^# (.*)$/m.exec(source)?.[1] ?? 'Documentation'
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<link rel="stylesheet" href="/docs/docs.css">
</head>
<body>
<nav><a href="/docs">← API reference</a> · <a href="/docs/api.md">api.md</a> · <a href="/docs/examples.md">examples.md</a> · <a href="/docs/contract.md">contract.md</a></nav>
<main>
${markdownToHtml(source)}
</main>
</body>
</html>
`
}
