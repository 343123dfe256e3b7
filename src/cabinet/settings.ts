/**
 * What an owner sets and reads of a merchant's money paths: the webhook endpoint (through the
 * operator's own setEndpoint and sendTestEvent, with the owner as the audit log's actor), the
 * payout whitelist (read only) and the payout limits (read only, the operator's to set).
 */
import { isIP } from 'node:net';
import type { Db, Executor } from '../db/database.js';
import { AppError } from '../errors.js';
import { decodeCursor, DEFAULT_PAGE_LIMIT, toPage } from '../http/pagination.js';
import { payoutLimits } from '../payouts/limits.js';
import type { Services } from '../services.js';
import { endpointView, findEndpoint, setEndpoint } from '../webhooks/endpoints.js';
import { sendTestEvent } from '../webhooks/service.js';
import { blockedReason } from '../webhooks/ssrf.js';
import { urlProblem } from '../webhooks/transport.js';
import { formatDuration } from '../whitelist/duration.js';
import { listEntries } from '../whitelist/store.js';
import { ownerActor } from './context.js';
import type { CabinetSession } from './sessions.js';

/** The endpoint as its owner sees it; `secret` only in the answer that made it. */
function ownerEndpointView(v: ReturnType<typeof endpointView>) {
  const { merchant_id: _merchant, ...view } = v;
  return view;
}

/** The merchant's endpoint (never a secret), or null while none is set. */
export async function webhookOf(db: Executor, merchantId: string, now: Date) {
  const row = await findEndpoint(db, merchantId);
  return row ? ownerEndpointView(endpointView(row, null, now)) : null;
}

/**
 * Why the owner may not set this URL, or null. The owner's URL is held to the public rules
 * (https, no private, loopback or link-local address); the operator's allowance of private
 * targets goes with the URL it was given for, so it holds while the owner keeps that URL (to
 * rotate the secret) and never for another one.
 */
function ownerUrlProblem(url: string, allowPrivate: boolean): string | null {
  const problem = urlProblem(url, allowPrivate);
  if (problem) return problem.replace(' (http only with --allow-private)', '');
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const why = !allowPrivate && isIP(host) ? blockedReason(host) : null;
  return why ? `is refused: ${why}; only the operator can allow such a target` : null;
}

export async function setOwnedWebhook(
  s: Pick<Services, 'db' | 'clock'>,
  session: CabinetSession,
  merchantId: string,
  body: { url: string; rotate_secret?: boolean },
) {
  const current = await findEndpoint(s.db, merchantId);
  const allowPrivate = current?.allow_private === 1 && current.url === body.url;
  const problem = ownerUrlProblem(body.url, allowPrivate);
  if (problem)
    throw new AppError('webhook_url_not_allowed', `url ${problem}; nothing was changed`, {
      details: [{ path: 'body.url', message: problem }],
    });
  const view = await setEndpoint(s.db, s.clock, ownerActor(session), merchantId, {
    url: body.url,
    rotateSecret: body.rotate_secret === true,
    allowPrivate,
  });
  return ownerEndpointView(view);
}

export async function testOwnedWebhook(s: Pick<Services, 'db' | 'clock'>, session: CabinetSession, merchantId: string) {
  const r = await sendTestEvent(s.db, s.clock, merchantId, { actor: ownerActor(session) });
  // The owner learns that the target was refused, never what an internal name resolves to.
  return r.error?.startsWith('refused target ')
    ? { ...r, error: "refused target: not a public address (private addresses are the operator's to allow)" }
    : r;
}

/** The auto-approve and daily limits, decimal whole units of the payout's asset; null: no limit. */
export async function ownerPayoutLimits(db: Executor, merchantId: string) {
  const l = await payoutLimits(db, merchantId);
  return { auto_approve: l.autoApproveLimit, daily: l.dailyLimit };
}

/** Live whitelist entries, newest first, with their delay and when they become usable. */
export async function ownerWhitelist(db: Db, now: Date, merchantId: string, q: { limit?: number; cursor?: string }) {
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const rows = await listEntries(db, { merchantId, page: { after: decodeCursor(q.cursor), limit: limit + 1 } });
  const page = toPage(rows, limit, (e) => ({ at: e.created_at, id: e.id }));
  const delayMs = (e: { usable_from: string; created_at: string }) =>
    Date.parse(e.usable_from) - Date.parse(e.created_at);
  return {
    data: page.data.map((e) => ({
      entry_id: e.id,
      asset: e.asset,
      address: e.address,
      delay: delayMs(e) === 0 ? '0s' : formatDuration(delayMs(e)),
      delay_seconds: Math.floor(delayMs(e) / 1000),
      usable_from: e.usable_from,
      usable: e.usable_from <= now.toISOString(),
      created_at: e.created_at,
    })),
    next_cursor: page.next_cursor,
  };
}
