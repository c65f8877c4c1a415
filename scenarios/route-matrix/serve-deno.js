// Deno: Deno.serve and Deno's node:sqlite.
import { DatabaseSync } from 'node:sqlite';
import { makeApp } from './app.mjs';

const sql = new DatabaseSync(':memory:');
let insert, find;
const handle = makeApp({
  exec: (s) => sql.exec(s),
  insert: (id, name, cents) => {
    (insert ??= sql.prepare('INSERT INTO items (id, name, cents) VALUES (?, ?, ?)')).run(id, name, cents);
  },
  search: (p) => (find ??= sql.prepare('SELECT id, name, cents FROM items WHERE name LIKE ? ORDER BY id LIMIT 20')).all(p),
});

Deno.serve({ port: Number(Deno.env.get('PORT') || 3000), hostname: '127.0.0.1', onListen() {} }, (req) => {
  const url = new URL(req.url);
  const r = handle(url.pathname, url.searchParams, (n) => req.headers.get(n));
  return new Response(r.body, { status: r.status, headers: r.headers });
});
