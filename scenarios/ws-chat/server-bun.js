// A chat room on Bun.serve websockets: every message is broadcast to every client with a plain loop.
const clients = new Set();
Bun.serve({
  port: Number(process.env.PORT || 3000),
  hostname: '127.0.0.1',
  fetch(req, server) {
    if (server.upgrade(req)) return;
    return new Response('WebSocket only', { status: 426 });
  },
  websocket: {
    open(ws) { clients.add(ws); },
    message(ws, data) { for (const c of clients) c.send(data); },
    close(ws) { clients.delete(ws); },
  },
});
