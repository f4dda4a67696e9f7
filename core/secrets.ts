// Webhook signing secrets must be usable for HMAC, so they are encrypted (AES-256-GCM), not hashed.
// The key comes from SECRET_ENCRYPTION_KEY (64 hex chars), or a key file made once in .data/.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

export interface SecretBox {
  seal(plain: string): string
  open(sealed: string): string
}

export function loadSecretKey(configured?: string, dir = path.resolve('.data')): Buffer {
  if (configured) {
    const key = Buffer.from(configured, 'hex')
    if (key.length !== 32) throw new Error('SECRET_ENCRYPTION_KEY must be 64 hex characters')
    return key
  }
  const file = path.join(dir, 'secret.key')
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true })
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' })
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex')
}

export function secretBox(key: Buffer): SecretBox {
  return {
    seal(plain) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join('.')
    },
    open(sealed) {
      const [, iv, tag, data] = sealed.split('.')
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv!, 'base64'))
      decipher.setAuthTag(Buffer.from(tag!, 'base64'))
      return Buffer.concat([decipher.update(Buffer.from(data!, 'base64')), decipher.final()]).toString('utf8')
    },
  }
}
