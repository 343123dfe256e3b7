/** The owners' choice of notification mail (docs/operations/setup.md, "Mail"). */
import type { Clock } from '../clock.js';
import { ConfigError, type Config } from '../config.js';
import { AppError } from '../errors.js';
import { testMail } from './messages.js';
import { smtpTransport } from './transport.js';
import { writeTx, type Db } from '../db/database.js';
import { readChoice, writeChoice, type NotificationChoice } from './store.js';

export type { NotificationChoice } from './store.js';

export async function notificationsOf(db: Db, ownerId: string): Promise<NotificationChoice> {
  return readChoice(db, ownerId);
}

/** Replaces the owner's choice; it applies to the next mail queued. */
export async function chooseNotifications(
  deps: { db: Db; clock: Clock },
  ownerId: string,
  choice: NotificationChoice,
): Promise<NotificationChoice> {
  await writeTx(deps.db, (trx) => writeChoice(trx, ownerId, choice, deps.clock.now().toISOString()));
  return { exceptions: choice.exceptions, payouts_in_review: choice.payouts_in_review };
}

/**
 * `paygate mail test`: one mail straight to the server (not through the outbox), so the operator
 * sees at once whether SMTP_URL and MAIL_FROM work.
 */
export async function sendTestMail(config: Config, to: string): Promise<{ to: string; from: string; sent: true }> {
  if (!config.mail) throw new ConfigError('SMTP_URL', 'is not set: set SMTP_URL and MAIL_FROM to send mail');
  if (!/^[^\s<>@]+@[^\s<>@]+$/.test(to))
    throw new AppError('validation_failed', `Not an email address: "${to}"`, {
      details: [{ path: 'args.address', message: 'must be an email address' }],
    });
  const transport = smtpTransport(config.mail);
  try {
    const r = await transport.send(to, testMail(config.mail.from));
    if (r.kind !== 'sent')
      throw new AppError('service_unavailable', `The mail server did not take the mail: ${r.error}`);
    return { to, from: config.mail.from, sent: true };
  } finally {
    transport.close();
  }
}
