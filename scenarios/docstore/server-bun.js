// The document store on Bun.serve websockets; the store itself is in store.mjs.
import { setup, respond } from './store.mjs';
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
      respond(String(data), (a) => ws.send(a), () => ws.close(1011));
    },
  },
});
