// Request/response on Deno.serve and Deno.upgradeWebSocket: every text frame "<id> <op>" is answered "<id> ok".
import { onLowMemoryHint } from './lowmem.mjs';

onLowMemoryHint();
Deno.serve({ port: Number(Deno.env.get('PORT') || 3000), hostname: '127.0.0.1', onListen() {} }, (req) => {
  if (req.headers.get('upgrade') !== 'websocket') return new Response('WebSocket only', { status: 426 });
  const { socket, response } = Deno.upgradeWebSocket(req);
  socket.onmessage = (e) => {
    const r = String(e.data);
    socket.send(r.slice(0, r.indexOf(' ')) + ' ok');
  };
  return response;
});
