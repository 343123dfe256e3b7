/** SQLite's triggers as PL/pgSQL triggers of the same names. */

/**
 * status_counts (SQLite's migration 0039): the rows by status of invoices, deposits and payouts,
 * kept in the transaction of every insert, status change and delete.
 */
export const STATUS_COUNTS = `
create function status_count() returns trigger language plpgsql as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    update status_counts set n = n - 1 where table_name = tg_table_name and status = old.status;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into status_counts (table_name, status, n) values (tg_table_name, new.status, 1)
      on conflict (table_name, status) do update set n = status_counts.n + 1;
  end if;
  return null;
end $$;
${['invoices', 'deposits', 'payouts']
  .map(
    (t) => `
create trigger ${t}_count_insert after insert on ${t} for each row execute function status_count();
create trigger ${t}_count_status after update of status on ${t} for each row
  when (old.status is distinct from new.status) execute function status_count();
create trigger ${t}_count_delete after delete on ${t} for each row execute function status_count();`,
  )
  .join('\n')}
`;

/**
 * An invoice's address and its derivation index (SQLite's migrations 0040-0042): the index is
 * filled in from the address when the insert leaves it out, must name the address when given, and
 * neither changes afterwards. Triggers fire in name order: the fill comes before the match.
 */
export const INVOICE_ADDRESS = `
create function invoices_address_index_fill() returns trigger language plpgsql as $$
begin
  new.address_index := (select d.derivation_index from deposit_addresses d where d.address = new.address);
  return new;
end $$;
create trigger invoices_address_index_fill before insert on invoices for each row
  when (new.address_index is null) execute function invoices_address_index_fill();

create function invoices_address_matches() returns trigger language plpgsql as $$
begin
  if not exists (select 1 from deposit_addresses d where d.derivation_index = new.address_index and d.address = new.address) then
    raise exception 'invoice address is not the deposit address of its address_index' using errcode = 'check_violation';
  end if;
  return new;
end $$;
create trigger invoices_address_matches before insert on invoices for each row
  when (new.address_index is not null) execute function invoices_address_matches();

create function invoices_address_fixed() returns trigger language plpgsql as $$
begin
  raise exception 'an invoice keeps its deposit address' using errcode = 'check_violation';
end $$;
create trigger invoices_address_fixed before update of address, address_index on invoices for each row
  when (new.address is distinct from old.address
    or (old.address_index is not null and new.address_index is distinct from old.address_index))
  execute function invoices_address_fixed();
`;
