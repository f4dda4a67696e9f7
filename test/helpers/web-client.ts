// A browser-like client of the dashboard: a cookie jar, redirects not followed, and the CSRF field of the last page
// for the next form.
import type { TestApp } from './app.ts'

/** `path` is the app's, or an absolute URL (another server's, e.g. an identity provider's). */
export class WebClient {
  cookies = new Map<string, string>()
  csrf = ''
  readonly app: Pick<TestApp, 'url'>
  constructor(app: Pick<TestApp, 'url'>) {
    this.app = app
  }
  async request(path: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...init.headers, cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') }
    let body: string | undefined
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams(init.form).toString()
    }
    const res = await fetch(/^https?:/.test(path) ? path : this.app.url + path, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      body,
      redirect: 'manual',
    })
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const [k, v] = pair!.split('=')
      if (v) this.cookies.set(k!, v)
      else this.cookies.delete(k!)
    }
    const text = await res.text()
    const field = /name="_csrf" value="([^"]+)"/.exec(text)
    if (field) this.csrf = field[1]!
    return { status: res.status, text, headers: res.headers }
  }
  get(path: string) {
    return this.request(path)
  }
  post(path: string, form: Record<string, string> = {}) {
    return this.request(path, { form: { _csrf: this.csrf, ...form } })
  }
}
