// The document store on Deno.serve and Deno.upgradeWebSocket; the store itself is in store.mjs.
import { setup, respond } from './store.mjs';
import { onLowMemoryHint } from './lowmem.mjs';

onLowMemoryHint();

await setup();
Deno.serve({ port: Number(Deno.env.get('PORT') || 3000), hostname: '127.0.0.1', onListen() {} }, (req) => {
  if (req.headers.get('upgrade') !== 'websocket') return new Response('WebSocket only', { status: 426 });
  const { socket, response } = Deno.upgradeWebSocket(req);
  socket.onmessage = (e) => {
    respond(String(e.data), (a) => socket.send(a), () => socket.close(1011));
  };
  return response;
});
