import Sqlite from 'better-sqlite3';
import { randomBytes, randomUUID } from 'node:crypto';
const db = new Sqlite('/tmp/paygate-scale-1000000/paygate.db');
db.pragma('journal_mode = WAL'); db.pragma('synchronous = FULL'); db.pragma('foreign_keys = ON'); db.pragma('temp_store = MEMORY');
if (process.argv[2]) db.pragma(`cache_size = -${process.argv[2]}`);
const merchant = (db.prepare('select id from merchants limit 1').get() as { id: string }).id;
let next = (db.prepare('select max(derivation_index) m from deposit_addresses').get() as { m: number }).m + 1000000;
const ins = db.prepare('insert into deposit_addresses (address, derivation_index, merchant_id, external_user_id, created_at) values (?, ?, ?, null, ?)');
const ALPHA = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const addr = () => 'T' + Array.from(randomBytes(33), (b) => ALPHA[b % 58]).join('');
const now = new Date().toISOString();
const t = { ins: 0n, n: 0 };
const warm = new Sqlite('/tmp/paygate-scale-1000000/paygate.db', { readonly: true }); warm.pragma('cache_size = -256');
const probe = warm.prepare('select 1 from deposit_addresses where address = ?');
for (let round = 0; round < 40; round++) {
  const batch = Array.from({ length: 64 }, addr);
  if (process.env.WARM) { const s = process.hrtime.bigint(); for (const a of batch) probe.get(a); if (round === 20) console.log(`warm ${(Number(process.hrtime.bigint() - s) / 64000).toFixed(1)} µs/address`); }
  db.exec('begin immediate');
  for (let i = 0; i < 64; i++) { const a = batch[i]!; const s = process.hrtime.bigint(); ins.run(a, next++, merchant, now); if (round >= 10) { t.ins += process.hrtime.bigint() - s; t.n++; } }
  db.exec('rollback');
}
console.log(`cache ${process.argv[2] ?? 'default'}: insert deposit_addresses ${(Number(t.ins) / t.n / 1000).toFixed(1)} µs (n=${t.n})`);
