// Request/response in a WinterCG fetch handler (workerd): a WebSocketPair whose server end answers every
// text frame "<id> <op>" with "<id> ok".
export default {
  fetch(request) {
    if (request.headers.get('upgrade') !== 'websocket') return new Response('WebSocket only', { status: 426 });
    const [client, server] = Object.values(new WebSocketPair());
    server.accept();
    server.addEventListener('message', (e) => {
      const r = String(e.data);
      server.send(r.slice(0, r.indexOf(' ')) + ' ok');
    });
    return new Response(null, { status: 101, webSocket: client });
  },
};
