// node-postgres (pg), the same client library on every runtime: seed 100 rows, then batches of 100
// concurrent `SELECT ... LIMIT 100` over a pool of 100 connections until ITERATIONS queries have run.
// WARMUP queries first, unmeasured. The connection comes from PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE (SCRAM-SHA-256).
// Ends with one JSON line of metrics on stdout; anything else goes to stderr.
import process from "node:process";
import pg from "pg";

async function main() {
  const total = Number(process.env.ITERATIONS ?? 100000);
  const batch = 100;
  const rowsWanted = 100;
  const pool = new pg.Pool({ max: batch });

  await pool.query(`CREATE TABLE IF NOT EXISTS users_bench (
    id serial PRIMARY KEY,
    first_name text NOT NULL,
    last_name text NOT NULL,
    email text NOT NULL UNIQUE,
    dob date NOT NULL)`);
  await pool.query("TRUNCATE users_bench");
  const values = [];
  const params = [];
  for (let i = 0; i < rowsWanted; i++) {
    const p = i * 4;
    values.push(`($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4})`);
    params.push(`First${i}`, `Last${i}`, `user${i}@example.com`, `1990-01-${String((i % 28) + 1).padStart(2, "0")}`);
  }
  await pool.query(`INSERT INTO users_bench (first_name, last_name, email, dob) VALUES ${values.join(", ")}`, params);

  // Open every connection of the pool before the clock starts: the batches measure queries, not logins.
  await Promise.all(Array.from({ length: batch }, () => pool.query("SELECT 1")));
  // WARMUP queries (harness sets the same count for every runtime) before the clock starts: the batches
  // measure a warm client library, not its first JIT tiers.
  const warmup = Number(process.env.WARMUP ?? 0);
  for (let done = 0; done < warmup; done += batch) {
    const n = Math.min(batch, warmup - done);
    await Promise.all(Array.from({ length: n }, () => pool.query(`SELECT * FROM users_bench LIMIT ${rowsWanted}`)));
  }

  const latencies = [];
  let errors = 0;
  const t0 = performance.now();
  for (let done = 0; done < total; done += batch) {
    const n = Math.min(batch, total - done);
    const b0 = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: n }, () => pool.query(`SELECT * FROM users_bench LIMIT ${rowsWanted}`)),
    );
    latencies.push(performance.now() - b0);
    for (const r of results) {
      if (r.status !== "fulfilled" || r.value.rows.length !== rowsWanted) {
        if (errors === 0) console.error("query failed:", r.reason ?? `${r.value.rows.length} rows`);
        errors++;
      }
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  await pool.end();

  latencies.sort((a, b) => a - b);
  const rank = (q) => latencies[Math.max(0, Math.ceil(q * latencies.length) - 1)];
  console.log(JSON.stringify({
    ops: total,
    seconds,
    ops_per_s: total / seconds,
    p50_ms: rank(0.5),
    p99_ms: rank(0.99),
    errors,
    batches: latencies.length,
    batch_size: batch,
    rows_per_query: rowsWanted,
  }));
}

// A failure ends the script with one clear line on stderr: the trial's error quotes it.
main().catch((e) => {
  console.error(`postgres bench failed: ${e?.message ?? e}${e?.code ? ` (${e.code})` : ""}`);
  process.exit(1);
});
