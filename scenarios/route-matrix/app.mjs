// The route matrix app, the same on every runtime: four routes over state seeded at start-up. The entry
// scripts (serve-node.mjs, serve-bun.js, serve-deno.js) give it a SQLite database and an HTTP server.
import { readFileSync } from 'node:fs';

const enc = new TextEncoder();
const version = enc.encode(JSON.stringify({ app: 'route-matrix', version: '1.0.0' }));

// The CSS asset from memory: brotli or gzip as Accept-Encoding asks, else as is. Compressed once and
// committed (public/app.css.gz, .br), so that every runtime serves the same bytes: compressing at start-up
// gave each runtime's own zlib's output (3,146 gzip bytes on node, 3,332 on bun and deno).
const asset = (name) => readFileSync(new URL(`./public/${name}`, import.meta.url));
const css = asset('app.css');
const cssGzip = asset('app.css.gz');
const cssBr = asset('app.css.br');

// 1 MiB of media made at start-up (a committed binary would weigh on the repository).
const MEDIA = 1 << 20;
const media = new Uint8Array(MEDIA);
for (let i = 0; i < MEDIA; i++) media[i] = (i * 7 + (i >> 8)) & 255;

const ADJ = ['red', 'blue', 'green', 'amber', 'black', 'white', 'silver', 'violet'];
const NOUN = ['chair', 'table', 'lamp', 'desk', 'shelf', 'clock', 'mirror', 'rug', 'vase', 'stool'];

// db: { exec(sql), insert(id, name, cents), search(pattern) -> rows }, from the runtime's own SQLite.
export function makeApp(db) {
  db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, cents INTEGER NOT NULL)');
  db.exec('BEGIN');
  for (let i = 1; i <= 2000; i++) db.insert(i, `${ADJ[i % 8]} ${NOUN[(i * 7) % 10]} ${i}`, (i * 37) % 10000);
  db.exec('COMMIT');
  // The search is the A/B comparison's "cached search": SQLite answers a query's first request, a Map of
  // its encoded answer the later ones (so the route measures the cache, and SQLite once per query).
  const cache = new Map();

  function search(q) {
    let body = cache.get(q);
    if (!body) {
      const items = db.search(`%${q}%`).map((r) => ({ id: r.id, name: r.name, cents: r.cents }));
      body = enc.encode(JSON.stringify({ q, count: items.length, items }));
      if (cache.size < 1000) cache.set(q, body);
    }
    return body;
  }

  // "bytes=A-B", "bytes=A-" or "bytes=-N" against size: [start, end] or null when not satisfiable.
  function range(h, size) {
    const m = /^bytes=(\d*)-(\d*)$/.exec(h.trim());
    if (!m || (m[1] === '' && m[2] === '')) return null;
    let start, end;
    if (m[1] === '') {
      start = Math.max(0, size - Number(m[2]));
      end = size - 1;
    } else {
      start = Number(m[1]);
      end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    }
    return start <= end && start < size ? [start, end] : null;
  }

  // (path, query, header(name)) -> { status, headers, body }
  return function handle(path, query, header) {
    if (path === '/api/version') return { status: 200, headers: { 'content-type': 'application/json' }, body: version };
    if (path === '/static/app.css') {
      const ae = header('accept-encoding') || '';
      const type = { 'content-type': 'text/css', vary: 'Accept-Encoding' };
      if (/\bbr\b/.test(ae)) return { status: 200, headers: { ...type, 'content-encoding': 'br' }, body: cssBr };
      if (/\bgzip\b/.test(ae)) return { status: 200, headers: { ...type, 'content-encoding': 'gzip' }, body: cssGzip };
      return { status: 200, headers: type, body: css };
    }
    if (path === '/api/search') {
      const q = (query.get('q') || '').slice(0, 64);
      return { status: 200, headers: { 'content-type': 'application/json' }, body: search(q) };
    }
    if (path === '/media/clip.bin') {
      const type = { 'content-type': 'application/octet-stream', 'accept-ranges': 'bytes' };
      const h = header('range');
      if (!h) return { status: 200, headers: type, body: media };
      const r = range(h, MEDIA);
      if (!r) return { status: 416, headers: { 'content-range': `bytes */${MEDIA}` }, body: new Uint8Array(0) };
      return {
        status: 206,
        headers: { ...type, 'content-range': `bytes ${r[0]}-${r[1]}/${MEDIA}` },
        body: media.subarray(r[0], r[1] + 1),
      };
    }
    return { status: 404, headers: { 'content-type': 'text/plain' }, body: enc.encode('not found') };
  };
}
