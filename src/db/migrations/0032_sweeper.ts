import { sql, type Kysely } from 'kysely';

/**
 * The sweeper: sweeps (one per deposit address and asset and run), their signed transactions
 * (stored before broadcast), what was last checked per address, `paygate sweep` requests and the
 * operator's thresholds.
 *
 * `sweeps_one_open`: at most one open sweep per address, whoever tries (two ticks, two processes).
 * `sweep_txs (sweep_id, seq)`: one transaction per step number, so two signers cannot both act.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const units = (c: string) => sql`${sql.ref(c)} glob '[0-9]*' and ${sql.ref(c)} not glob '*[^0-9]*'`;
  await db.schema
    .createTable('sweeps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('derivation_index', 'integer', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull().check(sql`trigger in ('auto', 'manual')`))
    .addColumn('request_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('open', 'done', 'empty', 'refused')`))
    .addColumn('balance', 'text', (c) => c.notNull().check(units('balance')))
    .addColumn('amount', 'text')
    .addColumn('fee', 'text', (c) => c.notNull().check(units('fee')))
    .addColumn('top_up', 'text', (c) => c.notNull().check(units('top_up')))
    .addColumn('delegated', 'text', (c) => c.notNull().check(units('delegated')))
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('retry_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema
    .createIndex('sweeps_one_open')
    .unique()
    .on('sweeps')
    .column('address')
    .where(sql.ref('status'), '=', 'open')
    .execute();
  await db.schema.createIndex('sweeps_address').on('sweeps').columns(['address', 'created_at']).execute();
  await db.schema.createIndex('sweeps_request').on('sweeps').column('request_id').execute();

  await db.schema
    .createTable('sweep_txs')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('sweep_id', 'text', (c) => c.notNull().references('sweeps.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('step', 'text', (c) => c.notNull())
    .addColumn('signer', 'text', (c) => c.notNull().check(sql`signer in ('hot', 'deposit')`))
    .addColumn('txid', 'text', (c) => c.notNull().unique())
    .addColumn('signed', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('expiration', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('signed', 'broadcast', 'confirmed', 'failed', 'expired')`),
    )
    .addColumn('broadcast_code', 'text')
    .addColumn('receipt_result', 'text')
    .addColumn('fee', 'text')
    .addColumn('block_number', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sweep_txs_step').unique().on('sweep_txs').columns(['sweep_id', 'seq']).execute();

  await db.schema
    .createTable('sweep_marks')
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('checked_block', 'integer', (c) => c.notNull())
    .addColumn('balance', 'text', (c) => c.notNull().check(units('balance')))
    .addColumn('checked_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sweep_marks_pk', ['address', 'asset'])
    .execute();

  await db.schema
    .createTable('sweep_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('address', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'running', 'done')`))
    .addColumn('targets', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sweep_thresholds')
    .addColumn('asset', 'text', (c) => c.primaryKey())
    .addColumn('threshold', 'text', (c) => c.notNull().check(units('threshold')))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  // Candidates: final confirmed deposits per address and asset.
  await db.schema
    .createIndex('deposits_final_by_address')
    .on('deposits')
    .columns(['address', 'asset', 'block_number'])
    .where(sql.ref('final'), '=', 1)
    .execute();
  // Between full scans the sweeper reads only deposits that changed (turned final) recently.
  await db.schema
    .createIndex('deposits_final_by_update')
    .on('deposits')
    .column('updated_at')
    .where(sql.ref('final'), '=', 1)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('deposits_final_by_update').execute();
  await db.schema.dropIndex('deposits_final_by_address').execute();
  for (const t of ['sweep_thresholds', 'sweep_requests', 'sweep_marks', 'sweep_txs', 'sweeps'])
    await db.schema.dropTable(t).execute();
}
