// Warm install (the runtime suite's): how long this runtime's package manager takes on a lock file of
// ~270 packages with no network, (a) re-running the install when node_modules already satisfies the lock
// (as published), (b) installing into a fresh folder from a warm cache. node images run npm (this scenario's
// own dependency, pinned by its package-lock.json and seen at /scenario/node_modules/npm, run by this node:
// never the host's), bun runs `bun install`, deno `deno install`; each has its own committed lock in project/. With PREPARE=1 (once, before the trials, with the network) it fills /prepared with the
// cache and an installed tree; each timed install starts from a fresh copy of them in /tmp. An install
// that fails (it needed the network, or the cache lacks a package) ends the run: exit 1, saying so.
// Ends with one JSON line of metrics on stdout; anything else goes to stderr.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const PROJECT = '/scenario/project';
const PREPARED = '/prepared';
const WORK = '/tmp/warm-install';
const kind = typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'npm';
const FILES = { npm: ['package.json', 'package-lock.json'], bun: ['package.json', 'bun.lock'], deno: ['package.json', 'deno.lock'] }[kind];

// The npm the node images run: the scenario's package.json names it and its lock pins it (harness installs
// it before the trials, integrity-checked). Without it the run fails: an npm found on PATH is the host's,
// of whatever version, and its figures would not be this scenario's.
const NPM = '/scenario/node_modules/npm';

function npmCli() {
  const cli = path.join(NPM, 'bin', 'npm-cli.js');
  if (!fs.existsSync(cli)) {
    console.error(`warm-install: no npm at ${NPM}: the scenario's package.json and package-lock.json pin the npm the node images run, and harness installs it before the trials; not running the host's`);
    process.exit(1);
  }
  return cli;
}

// The package manager's command line (argv[0] is this runtime) and environment, with its cache at cache.
function command(mode, cache) {
  const env = { ...process.env, NO_COLOR: '1' };
  // The registry of the prepare step: caches key metadata by its URL. Measured runs have no network at all.
  const file = path.join(PREPARED, kind, 'registry');
  if (mode === 'prepare') fs.writeFileSync(file, env.NPM_CONFIG_REGISTRY || env.npm_config_registry || '');
  else if (fs.readFileSync(file, 'utf8')) env.npm_config_registry = env.NPM_CONFIG_REGISTRY = fs.readFileSync(file, 'utf8');
  if (kind === 'npm') {
    const sub = mode === 'warm' ? 'install' : 'ci';
    const args = [npmCli(), sub, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', `--cache=${cache}`];
    if (mode !== 'prepare') args.push('--offline');
    return { argv: args, env };
  }
  if (kind === 'bun') {
    env.BUN_INSTALL_CACHE_DIR = cache;
    return { argv: ['install', '--ignore-scripts', ...(mode === 'warm' ? [] : ['--frozen-lockfile'])], env };
  }
  env.DENO_DIR = cache;
  return { argv: ['install', ...(mode === 'warm' ? [] : ['--frozen'])], env };
}

function install(mode, dir, cache) {
  const { argv, env } = command(mode, cache);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, argv, { cwd: dir, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const ms = performance.now() - t0;
  if (r.status !== 0) {
    // its error lines (deno follows them with a backtrace), else its last lines
    const lines = `${r.stderr || ''}${r.stdout || ''}${r.error ? r.error.message : ''}`.trim().split('\n');
    const errors = lines.filter((l) => /\berror\b/i.test(l));
    const tail = (errors.length ? errors.slice(0, 4) : lines.slice(-6)).join('\n');
    const why = mode === 'prepare' ? 'preparing' : 'it needed the network or a package the cache lacks (the sandbox has no network)';
    // its lines first: a trial's error quotes the end of stderr, which is this script's own line
    console.error(tail);
    console.error(`warm-install: ${kind} ${argv[kind === 'npm' ? 1 : 0]} (${mode}) failed with exit ${r.status ?? r.signal}: ${why}`);
    process.exit(1);
  }
  return ms;
}

// Every dependency of package.json is in node_modules: an install that left one out is not a pass.
function checkTree(dir) {
  const deps = Object.keys(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies);
  for (const d of deps) {
    if (!fs.existsSync(path.join(dir, 'node_modules', d, 'package.json'))) {
      console.error(`warm-install: ${kind}: node_modules/${d} is missing after the install`);
      process.exit(1);
    }
  }
  return deps.length;
}

function fresh(dir, withModules) {
  fs.rmSync(dir, { recursive: true, force: true });
  if (withModules) {
    fs.cpSync(path.join(PREPARED, kind, 'project'), dir, { recursive: true, verbatimSymlinks: true });
  } else {
    fs.mkdirSync(dir, { recursive: true });
    for (const f of FILES) fs.copyFileSync(path.join(PROJECT, f), path.join(dir, f));
  }
  const cache = path.join(WORK, 'cache');
  fs.rmSync(cache, { recursive: true, force: true });
  fs.cpSync(path.join(PREPARED, kind, 'cache'), cache, { recursive: true, verbatimSymlinks: true });
  return cache;
}

function prepare() {
  const dir = path.join(PREPARED, kind, 'project');
  fs.mkdirSync(dir, { recursive: true });
  for (const f of FILES) fs.copyFileSync(path.join(PROJECT, f), path.join(dir, f));
  install('prepare', dir, path.join(PREPARED, kind, 'cache'));
  console.error(`warm-install: prepared ${checkTree(dir)} dependencies with ${toolVersion()}`);
}

function median(a) {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

// The package manager's version, for the trial's log (the results' config.dependencies names npm's too).
function toolVersion() {
  if (kind === 'bun') return `bun ${Bun.version}`;
  if (kind === 'deno') return `deno ${Deno.version.deno}`;
  const r = spawnSync(process.execPath, [npmCli(), '--version'], { encoding: 'utf8' });
  return `npm ${(r.stdout || '').trim() || '(unknown)'} (${NPM})`;
}

function measure() {
  const n = Math.max(1, Number(process.env.ITERATIONS ?? 10));
  console.error(`warm-install: ${toolVersion()}`);
  // WARMUP pairs of installs first (harness sets the same count for every runtime), unmeasured: the first
  // reads the package manager and the cache from a cold page cache, which the later ones find warm
  const w = Number(process.env.WARMUP ?? 0);
  const warm = [];
  const cold = [];
  let deps = 0;
  for (let i = -w; i < n; i++) {
    const a = path.join(WORK, 'a');
    let cache = fresh(a, true);
    const wms = install('warm', a, cache);
    if (i >= 0) warm.push(wms);
    deps = checkTree(a);
    fs.rmSync(a, { recursive: true, force: true });
    const b = path.join(WORK, 'b');
    cache = fresh(b, false);
    const fms = install('fresh', b, cache);
    if (i >= 0) cold.push(fms);
    checkTree(b);
    fs.rmSync(b, { recursive: true, force: true });
  }
  fs.rmSync(WORK, { recursive: true, force: true });
  const seconds = (warm.reduce((x, y) => x + y, 0) + cold.reduce((x, y) => x + y, 0)) / 1000;
  console.log(JSON.stringify({
    ops: 2 * n,
    seconds,
    ops_per_s: (2 * n) / seconds,
    warm_ms: median(warm),
    warm_min_ms: Math.min(...warm),
    fresh_ms: median(cold),
    fresh_min_ms: Math.min(...cold),
    installs_each: n,
    dependencies: deps,
  }));
}

if (process.env.PREPARE === '1') prepare();
else measure();
