// Account emails (sign-in links, failed auto-recharge) through SMTP_URL with nodemailer. Without SMTP
// (development) the message is printed plainly on stderr, where the sign-in link can be clicked, and the JSON log
// only says so; a live sign-in link in a server's output is a key to the account, so an API process only starts
// that way when development says so (mailToLogWarning).
import nodemailer from 'nodemailer'
import { BootRefusal, type Config } from './config.ts'

export interface Mailer {
  send(to: string, subject: string, text: string): Promise<void>
}

export function createMailer(
  smtpUrl: string | undefined,
  from: string,
  log: (m: string) => void,
  print: (text: string) => void = (text) => process.stderr.write(text),
): Mailer {
  if (!smtpUrl) {
    return {
      async send(to, subject, text) {
        log(`[mail] no SMTP_URL: "${subject}" to ${to} is printed on stderr`)
        print(`\n----- email to ${to}: ${subject} (no SMTP_URL, development) -----\n${text}\n-----\n\n`)
      },
    }
  }
  const transport = nodemailer.createTransport(smtpUrl)
  return {
    async send(to, subject, text) {
      await transport.sendMail({ from, to, subject, text })
    },
  }
}

/**
 * Whether an API process may start with `config`'s mail setting: with SMTP_URL always; without it only when
 * MAIL_TO_LOG=true, or MAIL_TO_LOG is unset and the database is the embedded one (a development machine).
 * Returns the warning to log, or throws the refusal.
 */
export function mailToLogWarning(config: Pick<Config, 'smtpUrl' | 'mailToLog' | 'databaseUrl'>): string | null {
  if (config.smtpUrl) return null
  if (!(config.mailToLog ?? !config.databaseUrl))
    throw new BootRefusal(
      'SMTP_URL is not set, so sign-in links would be printed in the log, where whoever reads it could use them. ' +
        'Set SMTP_URL, or MAIL_TO_LOG=true on a development machine.',
    )
  return 'WARNING: no SMTP_URL: emails, live sign-in links included, are printed in this log (MAIL_TO_LOG). Development only.'
}
