// The document store on node:http + the ws library; the store itself is in store.mjs.
import http from 'node:http';
import { WebSocketServer } from 'ws';
import { setup, respond } from './store.mjs';
import { onLowMemoryHint } from './lowmem.mjs';

onLowMemoryHint();

await setup();
const wss = new WebSocketServer({ noServer: true });
wss.on('connection', (ws) => {
  ws.on('message', (data) => {
    respond(data.toString(), (a) => ws.send(a), () => ws.close(1011));
  });
});
const server = http.createServer((req, res) => { res.writeHead(426, { 'content-length': 0 }); res.end(); });
server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req)));
server.listen(Number(process.env.PORT || 3000), '127.0.0.1');
