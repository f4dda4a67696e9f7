// Account emails (sign-in links, failed auto-recharge) through SMTP_URL with nodemailer. Without SMTP
// the message is printed in the server log so that development works without a mail server.
import nodemailer from 'nodemailer'

export interface Mailer {
  send(to: string, subject: string, text: string): Promise<void>
}

export function createMailer(smtpUrl: string | undefined, from: string, log: (m: string) => void): Mailer {
  if (!smtpUrl) {
    return {
      async send(to, subject, text) {
        log(`[mail] (no SMTP_URL) to ${to}: ${subject}\n${text}`)
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
