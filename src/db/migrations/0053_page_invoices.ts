import { sql, type Kysely } from 'kysely';

/**
 * Page invoices (docs/adr/0063-page-invoices.md): an invoice priced in dollars whose customer picks
 * the token on the payment page. `page_invoices` holds what the merchant set (price as canonical
 * decimal text, the offered assets as a JSON array, `currencies_requested` the list as the merchant
 * sent it or null, description, user, URLs, the term) and the customer's choice (`asset`,
 * `chosen_at`); the choice inserts the `invoices` row under the same id, with `checkout_url`, and
 * from then on that row is an ordinary invoice. Before the choice there is no `invoices` row, so
 * /v1, the watcher and the webhooks know nothing of it.
 *
 * One order-id space per merchant across both tables, enforced here: each table's unique index
 * keeps its own rows apart, and a trigger on each refuses an order id that the other table holds
 * for another invoice (an invoice under its page invoice's id is that invoice, not another).
 * SQLite has one writer, so the check in the trigger stays true until commit.
 */
const ORDER_SPACE_SQLITE = [
  `create trigger invoices_order_space before insert on invoices
  when exists (select 1 from page_invoices p where p.merchant_id = new.merchant_id and p.order_id = new.order_id and p.id <> new.id)
  begin select raise(abort, 'order_id_space: the order id belongs to another invoice of the merchant'); end`,
  `create trigger page_invoices_order_space before insert on page_invoices
  when exists (select 1 from invoices i where i.merchant_id = new.merchant_id and i.order_id = new.order_id)
  begin select raise(abort, 'order_id_space: the order id belongs to another invoice of the merchant'); end`,
];

/**
 * PostgreSQL: the same triggers in PL/pgSQL. Both creations run at READ COMMITTED (row locks,
 * database.ts), where each statement of the function reads the latest commits: a transaction-scoped
 * advisory lock on (merchant, order id) makes two creations of one order id, one per table, take
 * turns, so the second sees the first's row.
 */
const ORDER_SPACE_POSTGRES = `
create function order_space() returns trigger language plpgsql as $$
begin
  perform pg_advisory_xact_lock(hashtextextended(new.merchant_id || chr(31) || new.order_id, 53));
  if tg_table_name = 'invoices' then
    if exists (select 1 from page_invoices p where p.merchant_id = new.merchant_id and p.order_id = new.order_id and p.id <> new.id) then
      raise exception 'order_id_space: the order id belongs to another invoice of the merchant';
    end if;
  elsif exists (select 1 from invoices i where i.merchant_id = new.merchant_id and i.order_id = new.order_id) then
    raise exception 'order_id_space: the order id belongs to another invoice of the merchant';
  end if;
  return new;
end $$;
create trigger invoices_order_space before insert on invoices for each row execute function order_space();
create trigger page_invoices_order_space before insert on page_invoices for each row execute function order_space();
`;

async function tables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('page_invoices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('price', 'text', (c) => c.notNull())
    .addColumn('currencies', 'text', (c) => c.notNull())
    .addColumn('currencies_requested', 'text')
    .addColumn('description', 'text')
    .addColumn('external_user_id', 'text')
    .addColumn('return_url', 'text')
    .addColumn('cancel_url', 'text')
    .addColumn('checkout_url', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('asset', 'text')
    .addColumn('chosen_at', 'text')
    .addCheckConstraint('page_invoices_choice', sql`(asset is null) = (chosen_at is null)`)
    .execute();
  await db.schema
    .createIndex('page_invoices_order')
    .on('page_invoices')
    .columns(['merchant_id', 'order_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('page_invoices_merchant_created')
    .on('page_invoices')
    .columns(['merchant_id', 'created_at'])
    .execute();
  // The page's link on the invoice itself, so every view of it (/v1, webhooks, reports) shows it.
  await db.schema.alterTable('invoices').addColumn('checkout_url', 'text').execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await tables(db);
  for (const statement of ORDER_SPACE_SQLITE) await sql.raw(statement).execute(db);
}

export async function postgres(db: Kysely<unknown>): Promise<void> {
  await tables(db);
  await sql.raw(ORDER_SPACE_POSTGRES).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const trigger of ['invoices_order_space', 'page_invoices_order_space'])
    await sql`drop trigger if exists ${sql.raw(trigger)}`.execute(db);
  await db.schema.alterTable('invoices').dropColumn('checkout_url').execute();
  await db.schema.dropTable('page_invoices').execute();
}
