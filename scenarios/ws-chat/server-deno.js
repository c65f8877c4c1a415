// A chat room on Deno.serve and Deno.upgradeWebSocket: every message is broadcast with a plain loop.
const clients = new Set();
Deno.serve({ port: Number(Deno.env.get('PORT') || 3000), hostname: '127.0.0.1', onListen() {} }, (req) => {
  if (req.headers.get('upgrade') !== 'websocket') return new Response('WebSocket only', { status: 426 });
  const { socket, response } = Deno.upgradeWebSocket(req);
  socket.onopen = () => clients.add(socket);
  socket.onmessage = (e) => { for (const c of clients) c.send(e.data); };
  socket.onclose = () => clients.delete(socket);
  return response;
});
