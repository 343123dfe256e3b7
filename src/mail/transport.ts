/**
 * Sends one mail over SMTP_URL with nodemailer. Short timeouts: a mail server that hangs holds one
 * mail's attempt, never the worker. The verdict follows SMTP: a 5xx answer is permanent (the
 * address or the message is refused), anything else (4xx, no connection, a timeout) is retried.
 */
import { createTransport, type Transporter } from 'nodemailer';
import type { MailConfig } from '../config.js';
import type { RenderedMail } from './messages.js';

export type SendResult = { kind: 'sent' } | { kind: 'retry' | 'failed'; error: string };

export interface MailTransport {
  send(to: string, mail: RenderedMail): Promise<SendResult>;
  close(): void;
}

export function smtpTransport(config: MailConfig): MailTransport {
  const t: Transporter = createTransport({
    url: config.smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async send(to, mail) {
      try {
        await t.sendMail({ from: config.from, to, subject: mail.subject, text: mail.text, html: mail.html });
        return { kind: 'sent' };
      } catch (err) {
        const e = err as { responseCode?: number; message?: string };
        const error = (e.message ?? String(err)).slice(0, 500);
        const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
        return { kind: permanent ? 'failed' : 'retry', error };
      }
    },
    close: () => t.close(),
  };
}
