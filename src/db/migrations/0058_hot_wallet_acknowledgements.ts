import { sql, type Kysely } from 'kysely';

/**
 * The operator's answer to a transfer out of the hot wallet that paygate did not sign
 * (docs/adr/0068-the-chain-says-which-payouts-were-sent.md, "Acknowledging a transfer"):
 * `hot_wallet_acknowledgements` holds, by txid, who said the transfer was theirs, when and why.
 * It is kept apart from `hot_wallet_transfers` because a fork removes that table's rows of the
 * blocks it replaced: a transaction that lands again in another block is recorded again, and is
 * still the operator's. `hot_wallet_transfers.kind` takes `acknowledged`.
 *
 * SQLite changes a CHECK by rebuilding the table ("Making Other Kinds Of Table Schema Changes" in
 * its ALTER TABLE documentation): nothing references `hot_wallet_transfers`, so the rebuild is a
 * copy, a drop, a rename and its two indexes. PostgreSQL replaces the constraint in place.
 */
const KINDS = sql`kind in ('payout', 'sweep', 'restore_match', 'acknowledged', 'unknown')`;

async function acknowledgements(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('hot_wallet_acknowledgements')
    .addColumn('tx_hash', 'text', (c) => c.primaryKey())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('acknowledged_by', 'text', (c) => c.notNull())
    .addColumn('acknowledged_at', 'text', (c) => c.notNull())
    .execute();
}

const COLUMNS = [
  'tx_hash',
  'log_index',
  'asset',
  'to_address',
  'amount',
  'decimals',
  'block_number',
  'block_hash',
  'block_time',
  'kind',
  'payout_id',
  'sweep_id',
  'detected_at',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('hot_wallet_transfers_new')
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('log_index', 'integer', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('decimals', 'integer', (c) => c.notNull())
    .addColumn('block_number', 'integer', (c) => c.notNull())
    .addColumn('block_hash', 'text', (c) => c.notNull())
    .addColumn('block_time', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(KINDS))
    .addColumn('payout_id', 'text', (c) => c.references('payouts.id'))
    .addColumn('sweep_id', 'text', (c) => c.references('sweeps.id'))
    .addColumn('detected_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('hot_wallet_transfers_pk', ['tx_hash', 'log_index'])
    .execute();
  const columns = sql.join(COLUMNS.map((c) => sql.id(c)));
  await sql`insert into hot_wallet_transfers_new (${columns}) select ${columns} from hot_wallet_transfers`.execute(db);
  await sql`drop table hot_wallet_transfers`.execute(db);
  await sql`alter table hot_wallet_transfers_new rename to hot_wallet_transfers`.execute(db);
  await db.schema
    .createIndex('hot_wallet_transfers_by_block')
    .on('hot_wallet_transfers')
    .column('block_number')
    .execute();
  await db.schema
    .createIndex('hot_wallet_transfers_by_kind')
    .on('hot_wallet_transfers')
    .columns(['kind', 'asset', 'to_address'])
    .execute();
  await acknowledgements(db);
}

export async function postgres(db: Kysely<unknown>): Promise<void> {
  // 0056 declared the CHECK on its column: PostgreSQL named it, so it is found by what it is.
  const checks = await sql<{ conname: string }>`select conname from pg_constraint
    where conrelid = 'hot_wallet_transfers'::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%kind%'`.execute(
    db,
  );
  for (const c of checks.rows)
    await sql`alter table hot_wallet_transfers drop constraint ${sql.id(c.conname)}`.execute(db);
  await sql`alter table hot_wallet_transfers add constraint hot_wallet_transfers_kind_check check (${KINDS})`.execute(
    db,
  );
  await acknowledgements(db);
}

/** No `down`: the way back is the backup taken before the upgrade (docs/operations/setup.md, "Upgrades"). */
