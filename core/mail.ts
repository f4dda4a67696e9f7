// Account emails (sign-in links, failed auto-recharge) through SMTP_URL with nodemailer. Without SMTP
// (development) the message is printed plainly on stderr, where the sign-in link can be clicked, and the log
// says so: the JSON log never carries a one-time link.
import nodemailer from 'nodemailer'

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
