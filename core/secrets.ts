// Webhook signing secrets must be usable for HMAC, so they are encrypted (AES-256-GCM), not hashed.
// The key is SECRET_ENCRYPTION_KEY (64 hex chars). Only with the embedded database, whose processes all run
// from one checkout, may it default to a key file made once in .data/; every other deployment must set it,
// or processes on different hosts would each make their own key and could not read each other's secrets.
// SECRET_ENCRYPTION_KEY_PREVIOUS keeps opening secrets sealed with the old key during a rotation.
import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { BootRefusal } from './config.ts'

/** Constant-time equality of two secrets of any length (both hashed first, so the lengths leak nothing). */
export function secretsEqual(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest()
  return timingSafeEqual(digest(a), digest(b))
}

export interface SecretBox {
  seal(plain: string): string
  /** Throws SecretUnreadable when no configured key opens it. */
  open(sealed: string): string
}

export class SecretUnreadable extends Error {}

function parseKey(name: string, hex: string): Buffer {
  const key = Buffer.from(hex, 'hex')
  if (key.length !== 32 || !/^[0-9a-f]{64}$/i.test(hex)) throw new BootRefusal(`${name} must be 64 hex characters (openssl rand -hex 32)`)
  return key
}

/** The keys in order of use: the current one seals, each one is tried to open. */
export function loadSecretKeys(opts: { current?: string; previous?: string; embedded: boolean }, dir = path.resolve('.data')): Buffer[] {
  const previous = opts.previous ? [parseKey('SECRET_ENCRYPTION_KEY_PREVIOUS', opts.previous)] : []
  if (opts.current) return [parseKey('SECRET_ENCRYPTION_KEY', opts.current), ...previous]
  if (!opts.embedded) {
    throw new BootRefusal(
      'SECRET_ENCRYPTION_KEY must be set when DATABASE_URL is not the embedded database: every process of a deployment needs the same key (openssl rand -hex 32).',
    )
  }
  const file = path.join(dir, 'secret.key')
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true })
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' })
  }
  return [parseKey(file, readFileSync(file, 'utf8').trim()), ...previous]
}

export function secretBox(keys: Buffer[]): SecretBox {
  const [current] = keys
  if (!current) throw new Error('secretBox needs a key')
  return {
    seal(plain) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', current, iv)
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join('.')
    },
    open(sealed) {
      const [, iv, tag, data] = sealed.split('.')
      for (const key of keys) {
        try {
          const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv ?? '', 'base64'))
          decipher.setAuthTag(Buffer.from(tag ?? '', 'base64'))
          return Buffer.concat([decipher.update(Buffer.from(data ?? '', 'base64')), decipher.final()]).toString('utf8')
        } catch {
          // not this key
        }
      }
      throw new SecretUnreadable('no configured SECRET_ENCRYPTION_KEY (or SECRET_ENCRYPTION_KEY_PREVIOUS) opens this secret')
    },
  }
}
