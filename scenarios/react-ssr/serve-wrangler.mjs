// `wrangler dev` serving app.js, as the published comparison ran complex.js: wrangler (Node) bundles the module
// and its React from /scenario/node_modules with esbuild and starts miniflare, whose workerd serves it behind
// miniflare's proxy. The bundle is production React, as every other runtime's: the config defines
// process.env.NODE_ENV from the sandbox's (harness sets it for every runtime: docs/scenario.md), never wrangler's
// own default. wrangler writes .wrangler/ beside its config, so the config goes into the sandbox's /tmp with
// `main` pointing at the read-only scenario. wrangler itself is the image's ($WRANGLER); the image's environment
// keeps it local: no telemetry, no error reports, no Request.cf fetch.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

if (!process.env.WRANGLER) {
  console.error('serve-wrangler.mjs: no WRANGLER in the environment: run it on the wrangler image');
  process.exit(2);
}
const mode = process.env.NODE_ENV || 'production';
const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const dir = '/tmp/wrangler-project';
mkdirSync(dir, { recursive: true });
const config = {
  name: 'react-ssr',
  main: here('./app.js'),
  compatibility_date: '2024-09-01',
  define: { 'process.env.NODE_ENV': JSON.stringify(mode) },
};
writeFileSync(`${dir}/wrangler.json`, JSON.stringify(config));
console.error(`serve-wrangler.mjs: wrangler dev, React bundled with process.env.NODE_ENV=${JSON.stringify(mode)}`);

const args = [process.env.WRANGLER, 'dev', '--config', `${dir}/wrangler.json`,
  '--ip', '127.0.0.1', '--port', String(process.env.PORT || 3000), '--show-interactive-dev-session=false'];
const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal === 'SIGTERM' ? 15 : 2)));
