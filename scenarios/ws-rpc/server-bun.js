// Request/response on Bun.serve websockets: every text frame "<id> <op>" is answered "<id> ok".
import { onLowMemoryHint } from './lowmem.mjs';

onLowMemoryHint();
Bun.serve({
  port: Number(process.env.PORT || 3000),
  hostname: '127.0.0.1',
  fetch(req, server) {
    if (server.upgrade(req)) return;
    return new Response('WebSocket only', { status: 426 });
  },
  websocket: {
    message(ws, data) {
      const req = String(data);
      ws.send(req.slice(0, req.indexOf(' ')) + ' ok');
    },
  },
});
