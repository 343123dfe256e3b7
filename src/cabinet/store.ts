/**
 * The cabinet's reads of one merchant's records, newest first, a keyset page at a time
 * (src/http/pagination.ts). Every query is scoped by merchant_id; the caller has checked that the
 * session's account sees that merchant.
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Executor } from '../db/database.js';
import { afterKey } from '../db/keyset.js';
import { byValue, startsWith } from '../db/portable.js';
import type { DB, InvoiceStatus, PayoutStatus } from '../db/schema.js';
import type { DeliveryStatus } from '../db/tables/webhooks.js';
import type { PageKey } from '../http/pagination.js';
import { listDeliveries } from '../webhooks/store.js';
import type { Period } from './period.js';

export type { Period } from './period.js';

export interface ListFilter extends Period {
  status?: string;
  asset?: string;
  /** The start of a reference, address or transaction hash, or an exact id (each table's search below). */
  q?: string;
}

/**
 * An invoice's or a payout's page, for `.where((eb) => listed(db, eb, merchantId, f, key, found))`:
 * the merchant's rows after the previous page's last one, of the status and asset and created in
 * the period when they are given, and matching the search.
 */
function listed<TB extends 'invoices' | 'payouts'>(
  db: Executor,
  eb: ExpressionBuilder<DB, TB>,
  merchantId: string,
  f: ListFilter,
  key: PageKey | null,
  found: (q: string) => Expression<SqlBool>,
): Expression<SqlBool> {
  const created = eb.ref('created_at');
  // A search is driven by its prefix indexes (the ids they find), not by walking the merchant's rows.
  const merchant = f.q === undefined ? eb.ref('merchant_id') : byValue(db, 'merchant_id');
  const conditions: Expression<SqlBool>[] = [sql<SqlBool>`${merchant} = ${merchantId}`];
  if (key) conditions.push(afterKey(eb, 'created_at', 'id', key, 'desc'));
  if (f.status) conditions.push(sql<SqlBool>`${eb.ref('status')} = ${f.status}`);
  if (f.asset) conditions.push(sql<SqlBool>`${eb.ref('asset')} = ${f.asset}`);
  if (f.from) conditions.push(sql<SqlBool>`${created} >= ${f.from}`);
  if (f.to) conditions.push(sql<SqlBool>`${created} < ${f.to}`);
  if (f.q !== undefined) conditions.push(found(f.q));
  return eb.and(conditions);
}

export async function pageInvoices(
  db: Executor,
  merchantId: string,
  f: ListFilter & { status?: InvoiceStatus },
  key: PageKey | null,
  limit: number,
) {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where((eb) =>
      listed(db, eb, merchantId, f, key, (q) =>
        eb.or([
          eb('id', '=', q),
          eb(
            'id',
            'in',
            eb
              .selectFrom('invoices as i')
              .select('i.id')
              .where('i.merchant_id', '=', merchantId)
              .where(startsWith(db, sql.ref('i.order_id'), q))
              .unionAll(
                eb
                  .selectFrom('invoices as i')
                  .select('i.id')
                  .where('i.merchant_id', '=', merchantId)
                  .where(startsWith(db, sql.ref('i.address'), q)),
              )
              .unionAll(
                eb
                  .selectFrom('deposits as d')
                  .select('d.invoice_id as id')
                  .where('d.merchant_id', '=', merchantId)
                  .where(startsWith(db, sql.ref('d.tx_hash'), q))
                  .where('d.invoice_id', 'is not', null)
                  .$narrowType<{ id: string }>(),
              ),
          ),
        ]),
      ),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

export async function pagePayouts(
  db: Executor,
  merchantId: string,
  f: ListFilter & { status?: PayoutStatus },
  key: PageKey | null,
  limit: number,
) {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where((eb) =>
      listed(db, eb, merchantId, f, key, (q) => {
        const by = (column: 'reference' | 'to_address' | 'tx_hash') =>
          eb
            .selectFrom('payouts as p')
            .select('p.id')
            .where('p.merchant_id', '=', merchantId)
            .where(startsWith(db, sql.ref(`p.${column}`), q));
        return eb.or([
          eb('id', '=', q),
          eb('id', 'in', by('reference').unionAll(by('to_address')).unionAll(by('tx_hash'))),
        ]);
      }),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

/** Live deposits of a merchant; `unattached`: only those paying no invoice. */
export async function pageDeposits(
  db: Executor,
  merchantId: string,
  f: { unattached: boolean },
  key: PageKey | null,
  limit: number,
) {
  let q = db.selectFrom('deposits').selectAll().where('merchant_id', '=', merchantId).where('status', '!=', 'orphaned');
  if (key) q = q.where((eb) => afterKey(eb, 'created_at', 'id', key, 'desc'));
  if (f.unattached) q = q.where('invoice_id', 'is', null);
  return q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

/** The merchant's webhook deliveries with their event type, newest first (webhooks/store.ts's console page). */
export async function pageDeliveries(
  db: Executor,
  merchantId: string,
  f: { status?: DeliveryStatus | 'retrying' },
  key: PageKey | null,
  limit: number,
) {
  const status = f.status === 'retrying' ? { retrying: true } : { status: f.status };
  return listDeliveries(db, { merchantId, ...status, limit: limit + 1, page: { after: key, limit: limit + 1 } });
}

export async function findDeliveryOf(db: Executor, merchantId: string, id: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select(['e.type', 'e.subject_id'])
    .where('d.id', '=', id)
    .where('d.merchant_id', '=', merchantId)
    .executeTakeFirst();
}

export async function pageKeys(db: Executor, merchantId: string, key: PageKey | null, limit: number) {
  let q = db.selectFrom('api_keys').selectAll().where('merchant_id', '=', merchantId);
  if (key) q = q.where((eb) => afterKey(eb, 'created_at', 'key_id', key, 'desc'));
  return q
    .orderBy('created_at', 'desc')
    .orderBy('key_id', 'desc')
    .limit(limit + 1)
    .execute();
}

export async function findKeyOf(db: Executor, merchantId: string, keyId: string) {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_id', '=', keyId)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
}
