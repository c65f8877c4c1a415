// The contended counter every runtime serves: one row of rpc_counter in the trial's Postgres (PGHOST,
// PGPORT, PGUSER, PGPASSWORD, PGDATABASE; SCRAM-SHA-256) through node-postgres (pg), one atomic
// UPDATE ... RETURNING per increment. harness reads the row itself at the end (docs/scenario.md).
import pg from 'pg';

const pool = new pg.Pool({ max: 16 });

export async function setup() {
  await pool.query('CREATE TABLE IF NOT EXISTS rpc_counter (id int PRIMARY KEY, n bigint NOT NULL)');
  await pool.query('INSERT INTO rpc_counter VALUES (1, 0) ON CONFLICT (id) DO NOTHING');
  // every connection of the pool opened before the load: the clients measure increments, not logins
  await Promise.all(Array.from({ length: 16 }, () => pool.query('SELECT 1')));
}

// "<id> incr" -> "<id> <new value>"; "g get" -> "g <value>".
export async function answer(req) {
  const sp = req.indexOf(' ');
  const id = req.slice(0, sp);
  const op = req.slice(sp + 1);
  const r = op === 'incr'
    ? await pool.query('UPDATE rpc_counter SET n = n + 1 WHERE id = 1 RETURNING n')
    : await pool.query('SELECT n FROM rpc_counter WHERE id = 1');
  return `${id} ${r.rows[0].n}`;
}
