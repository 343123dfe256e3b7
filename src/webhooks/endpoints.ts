/**
 * A merchant's webhook endpoint: `paygate merchant webhook <id> --url …`. The secret is shown once,
 * when it is made (first set, --rotate-secret); a rotation keeps the previous secret signing for
 * 24 h so the merchant can switch its verifier without losing deliveries.
 */
import { isIP } from 'node:net';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor } from '../db/database.js';
import type { WebhookEndpointsTable } from '../db/tables/webhooks.js';
import { AppError } from '../errors.js';
import { requireMerchant } from '../merchants/service.js';
import { newSecret } from './signing.js';
import { blockedReason } from './ssrf.js';
import { urlProblem } from './transport.js';

export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export type EndpointRow = WebhookEndpointsTable;

export interface EndpointInput {
  url: string;
  rotateSecret?: boolean;
  /** Allows http and private targets for this URL; each call states it (it goes with the URL). */
  allowPrivate?: boolean;
}

export interface EndpointView {
  merchant_id: string;
  url: string;
  allow_private: boolean;
  /** The new secret, only when one was made now (first set or rotation); null otherwise. */
  secret: string | null;
  /** Until when the previous secret still signs (after a rotation), else null. */
  previous_secret_until: string | null;
  created_at: string;
  updated_at: string;
}

export async function findEndpoint(db: Executor, merchantId: string): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('merchant_id', '=', merchantId).executeTakeFirst();
}

/** The secrets that sign at `now`: the current one, and the previous one during its overlap. */
export function signingSecrets(
  e: Pick<EndpointRow, 'secret' | 'previous_secret' | 'previous_secret_until'>,
  now: Date,
): string[] {
  const previous =
    e.previous_secret && e.previous_secret_until && e.previous_secret_until > now.toISOString()
      ? [e.previous_secret]
      : [];
  return [e.secret, ...previous];
}

function checkUrl(url: string, allowPrivate: boolean): void {
  const problem = urlProblem(url, allowPrivate);
  if (problem) throw new AppError('invalid_argument', `--url ${problem}`);
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  // A literal address can be judged now; a host name is checked on every attempt (DNS changes).
  const why = !allowPrivate && isIP(host) ? blockedReason(host) : null;
  if (why) throw new AppError('invalid_argument', `--url refused: ${why} (allowed only with --allow-private)`);
}

export async function setEndpoint(
  db: Db,
  clock: Clock,
  actor: string,
  merchantId: string,
  input: EndpointInput,
): Promise<EndpointView> {
  const allowPrivate = input.allowPrivate === true;
  checkUrl(input.url, allowPrivate);
  return writeTx(db, async (trx) => {
    await requireMerchant(trx, merchantId);
    const now = clock.now();
    const at = now.toISOString();
    const cur = await findEndpoint(trx, merchantId);
    let secret: string | null = null;
    let row: EndpointRow;
    if (!cur) {
      secret = newSecret();
      row = {
        merchant_id: merchantId,
        url: input.url,
        secret,
        previous_secret: null,
        previous_secret_until: null,
        allow_private: allowPrivate ? 1 : 0,
        created_at: at,
        updated_at: at,
      };
      await trx.insertInto('webhook_endpoints').values(row).execute();
    } else {
      row = { ...cur, url: input.url, allow_private: allowPrivate ? 1 : 0, updated_at: at };
      if (input.rotateSecret) {
        secret = newSecret();
        row = {
          ...row,
          secret,
          previous_secret: cur.secret,
          previous_secret_until: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString(),
        };
      }
      await trx.updateTable('webhook_endpoints').set(row).where('merchant_id', '=', merchantId).execute();
    }
    await recordAudit(trx, clock, {
      actor,
      action: 'merchant.webhook',
      subjectType: 'merchant',
      subjectId: merchantId,
      merchantId,
      // Never the secret itself.
      details: {
        url: input.url,
        allow_private: allowPrivate,
        secret_made: secret !== null,
        rotated: cur !== undefined && secret !== null,
      },
    });
    return endpointView(row, secret, now);
  });
}

export function endpointView(row: EndpointRow, secret: string | null, now: Date): EndpointView {
  const overlap =
    row.previous_secret_until && row.previous_secret_until > now.toISOString() ? row.previous_secret_until : null;
  return {
    merchant_id: row.merchant_id,
    url: row.url,
    allow_private: row.allow_private === 1,
    secret,
    previous_secret_until: overlap,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
