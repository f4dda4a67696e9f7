// Company domains: normalisation (code, not the model, decides the `domain` of the answer) and the
// free-mail providers whose addresses say nothing about a company.
import { isIP } from 'node:net'

export type DomainCheck = { domain: string } | { problem: 'invalid' | 'ip' | 'reserved' }

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/
// Special-use and private-use names (RFC 6761, RFC 6762, RFC 7686, common intranet suffixes): no company's public site.
const RESERVED_TLDS = new Set([
  'localhost',
  'local',
  'test',
  'example',
  'invalid',
  'internal',
  'intranet',
  'lan',
  'home',
  'corp',
  'private',
  'onion',
  'arpa',
])

/**
 * "https://www.Acme.com/about" → "acme.com"; "bücher.de" → "xn--bcher-kva.de". Accepts a bare domain or a URL;
 * lower-cases, converts IDNs to punycode, drops scheme, port, path, a trailing dot and a leading "www.".
 */
export function normalizeDomain(raw: string): DomainCheck {
  let s = raw.trim()
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) s = `http://${s}`
  let host: string
  try {
    const url = new URL(s)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'invalid' }
    host = url.hostname
  } catch {
    return { problem: 'invalid' }
  }
  if (host.startsWith('[') || isIP(host)) return { problem: 'ip' }
  host = host.replace(/\.$/, '')
  if (host.startsWith('www.') && host.split('.').length > 2) host = host.slice(4)
  const labels = host.split('.')
  if (host.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || !TLD.test(labels.at(-1)!))
    return { problem: 'invalid' }
  if (RESERVED_TLDS.has(labels.at(-1)!)) return { problem: 'reserved' }
  return { domain: host }
}

/** The domain part of an e-mail address, normalised. */
export function emailDomain(email: string): DomainCheck {
  const at = email.lastIndexOf('@')
  if (at < 1 || at === email.length - 1) return { problem: 'invalid' }
  return normalizeDomain(email.slice(at + 1))
}

// Consumer mailbox providers (and their common country variants). Not exhaustive: a reasonable list of the
// providers that carry most personal mail worldwide.
const FREE_MAIL = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'ymail.com',
  'rocketmail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'passport.com',
  'windowslive.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'aim.com',
  'verizon.net',
  'att.net',
  'sbcglobal.net',
  'bellsouth.net',
  'comcast.net',
  'cox.net',
  'charter.net',
  'earthlink.net',
  'juno.com',
  'optonline.net',
  'proton.me',
  'protonmail.com',
  'protonmail.ch',
  'pm.me',
  'tutanota.com',
  'tutanota.de',
  'tuta.io',
  'tuta.com',
  'fastmail.com',
  'fastmail.fm',
  'hey.com',
  'zohomail.com',
  'mailfence.com',
  'posteo.de',
  'mailbox.org',
  'hushmail.com',
  'runbox.com',
  'mail.com',
  'email.com',
  'usa.com',
  'post.com',
  'inbox.com',
  'gmx.com',
  'gmx.net',
  'gmx.de',
  'web.de',
  't-online.de',
  'freenet.de',
  'arcor.de',
  'yandex.ru',
  'yandex.com',
  'ya.ru',
  'mail.ru',
  'bk.ru',
  'list.ru',
  'inbox.ru',
  'internet.ru',
  'rambler.ru',
  'ukr.net',
  'i.ua',
  'meta.ua',
  'abv.bg',
  'qq.com',
  'foxmail.com',
  '163.com',
  '126.com',
  'yeah.net',
  'sina.com',
  'sina.cn',
  'sohu.com',
  'aliyun.com',
  '139.com',
  '189.cn',
  'tom.com',
  'naver.com',
  'hanmail.net',
  'daum.net',
  'kakao.com',
  'nate.com',
  'rediffmail.com',
  'yahoo.co.in',
  'yahoo.co.jp',
  'docomo.ne.jp',
  'ezweb.ne.jp',
  'softbank.ne.jp',
  'libero.it',
  'virgilio.it',
  'tiscali.it',
  'alice.it',
  'tin.it',
  'orange.fr',
  'wanadoo.fr',
  'free.fr',
  'laposte.net',
  'sfr.fr',
  'neuf.fr',
  'bbox.fr',
  'btinternet.com',
  'sky.com',
  'talktalk.net',
  'virginmedia.com',
  'blueyonder.co.uk',
  'ntlworld.com',
  'seznam.cz',
  'centrum.cz',
  'wp.pl',
  'o2.pl',
  'interia.pl',
  'onet.pl',
  'op.pl',
  'azet.sk',
  'freemail.hu',
  'citromail.hu',
  'telenet.be',
  'skynet.be',
  'ziggo.nl',
  'kpnmail.nl',
  'home.nl',
  'planet.nl',
  'bluewin.ch',
  'sunrise.ch',
  'bol.com.br',
  'uol.com.br',
  'terra.com.br',
  'ig.com.br',
  'globo.com',
  'prodigy.net.mx',
  'shaw.ca',
  'rogers.com',
  'sympatico.ca',
  'videotron.ca',
  'bigpond.com',
  'bigpond.net.au',
  'optusnet.com.au',
  'xtra.co.nz',
  'walla.co.il',
  'mynet.com',
  'inbox.lv',
  'mail.ee',
])
// Providers with a mailbox domain per country: yahoo.co.uk, hotmail.fr, outlook.de, gmx.at, yandex.kz, aol.de ...
const FREE_MAIL_FAMILY =
  /^(?:yahoo|ymail|hotmail|outlook|live|windowslive|msn|gmx|yandex|aol|mail|rediffmail)\.(?:(?:co|com|net|org|ne)\.)?[a-z]{2,3}$/

export function isFreeMail(domain: string): boolean {
  if (FREE_MAIL_FAMILY.test(domain)) return true
  const labels = domain.split('.')
  // The domain itself or any parent (e.g. "eu.gmail.com").
  for (let i = 0; i < labels.length - 1; i++) if (FREE_MAIL.has(labels.slice(i).join('.'))) return true
  return false
}
