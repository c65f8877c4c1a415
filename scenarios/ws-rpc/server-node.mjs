// Request/response over node:http + the ws library through the 'upgrade' event: every text frame
// "<id> <op>" is answered "<id> ok" on the same socket.
import http from 'node:http';
import { WebSocketServer } from 'ws';
import { onLowMemoryHint } from './lowmem.mjs';

onLowMemoryHint();

const wss = new WebSocketServer({ noServer: true });
wss.on('connection', (ws) => {
  ws.on('message', (data) => {
    const req = data.toString();
    ws.send(req.slice(0, req.indexOf(' ')) + ' ok');
  });
});
const server = http.createServer((req, res) => { res.writeHead(426, { 'content-length': 0 }); res.end(); });
server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req)));
server.listen(Number(process.env.PORT || 3000), '127.0.0.1');
