// The document store every runtime serves (docs/docstore.md): documents in a Map, each write persisted to the
// trial's Postgres (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE) through node-postgres before it is
// acknowledged, with synchronous_commit=off as the published bench ran it. Reads come from memory; the writes
// of one key run one at a time, in the order they came, and a read of a key with writes queued waits for them,
// so one connection reads its own writes. The documents are loaded from Postgres at start, so a restarted
// store has them all.
//
// A request is one text frame, {"id":N,"op":OP,...}; its answer {"id":N,"ok":true,"value":V} or
// {"id":N,"ok":false,"error":"..."}. Ops: get {key[,path]}, has {key}, set {key,value}, add {key[,path],by},
// delete {key}, all {prefix} (at most 10,000 rows, in key order), login {user}, logout {token}.
import pg from 'pg';

// every connection of the pool with asynchronous commit, as the published bench ran PostgreSQL
const pool = new pg.Pool({ max: 16, options: '-c synchronous_commit=off' });

const docs = new Map();
const queues = new Map(); // key -> the tail of its writes
const sessions = new Map();
let nextSession = 1;

const SCAN_CAP = 10000;

export async function setup() {
  await pool.query('CREATE TABLE IF NOT EXISTS docs (k text PRIMARY KEY, v jsonb NOT NULL)');
  const r = await pool.query('SELECT k, v FROM docs');
  for (const row of r.rows) docs.set(row.k, row.v);
  // every connection of the pool opened before the load, each asked that its commits are asynchronous
  const modes = await Promise.all(Array.from({ length: 16 }, () => pool.query('SHOW synchronous_commit')));
  if (modes.some((r) => r.rows[0].synchronous_commit !== 'off')) throw new Error('synchronous_commit is not off');
}

// fn after the key's queued writes; the queue forgets the key once its last one is done
function serial(key, fn) {
  const prev = queues.get(key) || Promise.resolve();
  const done = prev.then(fn);
  const tail = done.catch(() => {});
  queues.set(key, tail);
  tail.then(() => { if (queues.get(key) === tail) queues.delete(key); });
  return done;
}

function read(key, fn) {
  return queues.has(key) ? serial(key, fn) : fn();
}

function persist(key, value) {
  return pool.query('INSERT INTO docs (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v',
    [key, JSON.stringify(value)]);
}

function at(doc, path) {
  let d = doc;
  for (const p of path) {
    if (d === null || typeof d !== 'object') return undefined;
    d = d[p];
  }
  return d;
}

// doc with path's number moved by `by`, the document made where it was missing; the new number
function addAt(doc, path, by) {
  if (!path.length) {
    if (doc !== undefined && typeof doc !== 'number') throw new Error('add: not a number');
    return [(doc || 0) + by, (doc || 0) + by];
  }
  const root = doc === undefined ? {} : doc;
  if (root === null || typeof root !== 'object') throw new Error('add: not a document');
  let d = root;
  for (const p of path.slice(0, -1)) {
    if (d[p] === undefined) d[p] = {};
    if (d[p] === null || typeof d[p] !== 'object') throw new Error('add: the path crosses a value');
    d = d[p];
  }
  const last = path[path.length - 1];
  if (d[last] !== undefined && typeof d[last] !== 'number') throw new Error('add: not a number');
  d[last] = (d[last] || 0) + by;
  return [root, d[last]];
}

const ops = {
  get: (q) => read(q.key, () => {
    const d = q.path ? at(docs.get(q.key), q.path) : docs.get(q.key);
    return d === undefined ? null : d;
  }),
  has: (q) => read(q.key, () => docs.has(q.key)),
  set: (q) => serial(q.key, async () => {
    await persist(q.key, q.value);
    docs.set(q.key, q.value);
    return true;
  }),
  add: (q) => serial(q.key, async () => {
    const old = docs.get(q.key);
    const [doc, n] = addAt(old === undefined ? undefined : structuredClone(old), q.path || [], q.by);
    await persist(q.key, doc);
    docs.set(q.key, doc);
    return n;
  }),
  delete: (q) => serial(q.key, async () => {
    if (!docs.has(q.key)) return false;
    await pool.query('DELETE FROM docs WHERE k = $1', [q.key]);
    docs.delete(q.key);
    return true;
  }),
  all: (q) => {
    const rows = [];
    for (const k of [...docs.keys()].filter((k) => k.startsWith(q.prefix || '')).sort()) {
      if (rows.length === SCAN_CAP) break;
      rows.push([k, docs.get(k)]);
    }
    return rows;
  },
  login: (q) => {
    const token = `s${nextSession++}.${q.user}`;
    sessions.set(token, q.user);
    return token;
  },
  logout: (q) => {
    if (!sessions.delete(q.token)) throw new Error('logout: no such session');
    return true;
  },
};

// One frame in, its answer out (a string, or a promise of one).
export function answer(text) {
  let q;
  try {
    q = JSON.parse(text);
  } catch {
    return '{"id":-1,"ok":false,"error":"not JSON"}';
  }
  const op = ops[q.op];
  const fail = (e) => JSON.stringify({ id: q.id, ok: false, error: String(e && e.message || e) });
  if (!op) return fail(`unknown op ${q.op}`);
  try {
    const v = op(q);
    const ok = (value) => `{"id":${q.id},"ok":true,"value":${JSON.stringify(value)}}`;
    return v instanceof Promise ? v.then(ok, fail) : ok(v);
  } catch (e) {
    return fail(e);
  }
}

// The answer to one frame through send: at once when it is known at once (a read of a key with no writes
// queued), else when its write is done; a store that fails closes the connection (close).
export function respond(text, send, close) {
  const a = answer(text);
  if (typeof a === 'string') send(a);
  else a.then(send, (e) => { console.error(e); close(); });
}
