// The contended counter on Deno.serve and Deno.upgradeWebSocket; the counter itself is in counter.mjs.
import { setup, answer } from './counter.mjs';
import { onLowMemoryHint } from './lowmem.mjs';

onLowMemoryHint();

await setup();
Deno.serve({ port: Number(Deno.env.get('PORT') || 3000), hostname: '127.0.0.1', onListen() {} }, (req) => {
  if (req.headers.get('upgrade') !== 'websocket') return new Response('WebSocket only', { status: 426 });
  const { socket, response } = Deno.upgradeWebSocket(req);
  socket.onmessage = (e) => {
    answer(String(e.data)).then((a) => socket.send(a), (err) => { console.error(err); socket.close(1011); });
  };
  return response;
});
