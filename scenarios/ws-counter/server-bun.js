// The contended counter on Bun.serve websockets; the counter itself is in counter.mjs.
import { setup, answer } from './counter.mjs';
import { onLowMemoryHint } from './lowmem.mjs';

onLowMemoryHint();

await setup();
Bun.serve({
  port: Number(process.env.PORT || 3000),
  hostname: '127.0.0.1',
  fetch(req, server) {
    if (server.upgrade(req)) return;
    return new Response('WebSocket only', { status: 426 });
  },
  websocket: {
    message(ws, data) {
      answer(String(data)).then((a) => ws.send(a), (e) => { console.error(e); ws.close(1011); });
    },
  },
});
