// A chat room on node:http + the ws library through the 'upgrade' event: every message is broadcast to
// every client with a plain loop.
import http from 'node:http';
import { WebSocketServer } from 'ws';

const wss = new WebSocketServer({ noServer: true });
const clients = new Set();
wss.on('connection', (ws) => {
  clients.add(ws);
  ws.on('message', (data, isBinary) => {
    for (const c of clients) c.send(data, { binary: isBinary });
  });
  ws.on('close', () => clients.delete(ws));
});
const server = http.createServer((req, res) => { res.writeHead(426, { 'content-length': 0 }); res.end(); });
server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req)));
server.listen(Number(process.env.PORT || 3000), '127.0.0.1');
