const D = require('better-sqlite3');
const pages = require('/tmp/pages.json');
const db = new D('/tmp/paygate-scale-1000000/paygate.db', { readonly: true });
const want = new Set([...(pages['18'] || []), ...(pages['26'] || []), ...(pages['34'] || [])]);
const name = new Map();
const t = Date.now();
for (const r of db.prepare("select name, pageno, pagetype from dbstat").iterate()) if (want.has(r.pageno)) name.set(r.pageno, `${r.name} ${r.pagetype}`);
console.error('dbstat', Date.now() - t, 'ms');
for (const fd of ['18', '26', '34']) {
  const c = new Map();
  for (const p of pages[fd] || []) { const k = name.get(p) || '(new/free page)'; c.set(k, (c.get(k) || 0) + 1); }
  console.log('fd', fd, [...c].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([k, v]) => `${v} ${k}`).join('; '));
}
