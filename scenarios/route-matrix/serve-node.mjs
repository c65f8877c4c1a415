// Node (22.5+, 24): node:http and node:sqlite.
import { createServer } from 'node:http';
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

createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const r = handle(url.pathname, url.searchParams, (n) => req.headers[n]);
  res.writeHead(r.status, { ...r.headers, 'content-length': r.body.length });
  res.end(r.body);
}).listen(Number(process.env.PORT || 3000), '127.0.0.1');
