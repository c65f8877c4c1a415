// `wrangler dev` serving fetch.js, as the published comparison ran it: wrangler (Node) bundles the module with
// esbuild and starts miniflare, whose workerd serves it behind miniflare's proxy. wrangler writes .wrangler/
// beside its config, so the config goes into the sandbox's /tmp with `main` pointing at the read-only scenario.
// wrangler itself is the image's (its packages, read-only at /opt/packages: $WRANGLER), so the scenario has no
// npm dependencies and no other runtime installs them. The image's environment keeps it local: no telemetry,
// no error reports, no Request.cf fetch.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

if (!process.env.WRANGLER) {
  console.error('serve-wrangler.mjs: no WRANGLER in the environment: run it on the wrangler image');
  process.exit(2);
}
const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const dir = '/tmp/wrangler-project';
mkdirSync(dir, { recursive: true });
const config = { name: 'fetch', main: here('./fetch.js'), compatibility_date: '2024-09-01' };
writeFileSync(`${dir}/wrangler.json`, JSON.stringify(config));

const args = [process.env.WRANGLER, 'dev', '--config', `${dir}/wrangler.json`,
  '--ip', '127.0.0.1', '--port', String(process.env.PORT || 3000), '--show-interactive-dev-session=false'];
const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal === 'SIGTERM' ? 15 : 2)));
