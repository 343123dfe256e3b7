/** SQL for the watcher's own state: the cursor and the scanned blocks above the solid height. */
import type { Executor, Tx } from '../db/database.js';
import type { ChainCursorTable, ScannedBlocksTable } from '../db/tables/watcher.js';

export type Cursor = ChainCursorTable;

export async function readCursor(db: Executor): Promise<Cursor | undefined> {
  return db.selectFrom('chain_cursor').selectAll().where('id', '=', 1).executeTakeFirst();
}

export async function writeCursor(db: Tx, c: Omit<Cursor, 'id'>): Promise<void> {
  await db
    .insertInto('chain_cursor')
    .values({ id: 1, ...c })
    .onConflict((oc) => oc.column('id').doUpdateSet(c))
    .execute();
}

/** The time of the last block scanned: invoices expire against it, never the wall clock alone. */
export async function scanHorizon(db: Executor): Promise<Date | null> {
  const c = await readCursor(db);
  return c?.last_block_time ? new Date(c.last_block_time) : null;
}

export async function scannedBlock(db: Executor, number: number): Promise<ScannedBlocksTable | undefined> {
  return db.selectFrom('scanned_blocks').selectAll().where('number', '=', number).executeTakeFirst();
}

/** Stored blocks from `from` up, highest first. */
export async function scannedFrom(db: Executor, from: number): Promise<ScannedBlocksTable[]> {
  return db.selectFrom('scanned_blocks').selectAll().where('number', '>=', from).orderBy('number', 'desc').execute();
}

export async function lowestScanned(db: Executor): Promise<number | null> {
  const r = await db
    .selectFrom('scanned_blocks')
    .select((eb) => eb.fn.min('number').as('n'))
    .executeTakeFirst();
  return r?.n ?? null;
}

export async function storeScanned(db: Tx, rows: ScannedBlocksTable[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('scanned_blocks')
    .values(rows)
    .onConflict((oc) =>
      oc.column('number').doUpdateSet((eb) => ({
        hash: eb.ref('excluded.hash'),
        parent_hash: eb.ref('excluded.parent_hash'),
        timestamp: eb.ref('excluded.timestamp'),
      })),
    )
    .execute();
}

export async function dropScannedAbove(db: Tx, number: number): Promise<void> {
  await db.deleteFrom('scanned_blocks').where('number', '>', number).execute();
}

/** Blocks below the solid height cannot change any more; keep only the last one scanned below it. */
export async function pruneScanned(db: Tx, solid: number, lastScanned: number): Promise<void> {
  await db.deleteFrom('scanned_blocks').where('number', '<', Math.min(solid, lastScanned)).execute();
}
