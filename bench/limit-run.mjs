// Runs a limit (bench/limit.ts builds it): statements prepared once, then per request the page's
// ids, their rows, the relations the answer carries and the COUNT, decoded and JSON.stringify'd.
// Plain JavaScript on better-sqlite3 alone, so the bare server (bare-server.mjs) loads nothing
// else.

const MASK = '********';

function decoder(fields) {
  return (row) => {
    const out = {};
    for (const f of fields) {
      let v = row[f.name];
      if (v === undefined) v = null;
      if (v !== null) {
        if (f.kind === 'bool') v = v === 1 || v === true || v === '1';
        else if (f.kind === 'json' && typeof v === 'string') {
          try {
            v = JSON.parse(v);
          } catch {
            v = null;
          }
        } else if (typeof v === 'bigint') v = Number(v);
        if (f.secret) v = MASK;
      }
      out[f.name] = v;
    }
    return out;
  };
}

export function prepareLimit(db, spec) {
  const ids = db.prepare(spec.ids.sql);
  const rowsStmt = db.prepare(spec.rows);
  const count = db.prepare(spec.count.sql).pluck();
  const decode = decoder(spec.fields);
  const rels = spec.rels.map((r) => ({ ...r, stmt: db.prepare(r.sql), decode: decoder(r.fields) }));
  const page = () => {
    const rids = ids.all(...spec.ids.params).map((x) => x._rid);
    if (!rids.length) return [];
    const byRid = new Map(rowsStmt.all(JSON.stringify(rids)).map((row) => [row._rid, row]));
    return rids.map((rid) => byRid.get(rid));
  };
  return {
    page,
    count: () => count.get(...spec.count.params),
    run(link = spec.link) {
      const rows = page();
      const items = rows.map(decode);
      for (const r of rels) {
        if (r.kind === 'belongsTo') {
          const keys = [...new Set(rows.map((row) => row[r.fk]).filter((v) => v !== null && v !== undefined))];
          const found = new Map(r.stmt.all(JSON.stringify(keys)).map((x) => [x.id, r.decode(x)]));
          rows.forEach((row, i) => (items[i][r.name] = found.get(row[r.fk]) ?? null));
        } else {
          const grouped = new Map();
          for (const x of r.stmt.all(JSON.stringify(rows.map((row) => row.id)))) {
            let list = grouped.get(x._owner);
            if (!list) grouped.set(x._owner, (list = []));
            list.push(r.decode(x));
          }
          rows.forEach((row, i) => (items[i][r.name] = grouped.get(row.id) ?? []));
        }
      }
      const total = count.get(...spec.count.params);
      if (spec.shape === 'items') return JSON.stringify({ items, total });
      return JSON.stringify({ objects: link ? items.map((o) => ({ ...o, front_link: `${link.prefix}${String(o.id)}${link.suffix}` })) : items, total });
    },
  };
}
