// A WebSocket chat room on node:http's 'upgrade' event with RFC 6455 framing written out by hand:
// every text message is broadcast to every client with a plain loop. Prints "port N" once listening.
//   node ws-chat.js [PORT] [--drop N]   (--drop N: skip one delivery in N, to test the invariant check)
'use strict';
const http = require('node:http');
const crypto = require('node:crypto');

const args = process.argv.slice(2);
const port = Number(args.find((a) => /^\d+$/.test(a)) || 0);
const dropEvery = args.includes('--drop') ? Number(args[args.indexOf('--drop') + 1]) : 0;
const clients = new Set();
let deliveries = 0;

function frame(opcode, payload) {
  const len = payload.length;
  const head = len < 126 ? Buffer.from([0x80 | opcode, len])
    : len < 65536 ? Buffer.from([0x80 | opcode, 126, len >> 8, len & 255])
      : Buffer.concat([Buffer.from([0x80 | opcode, 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(len)); return b; })()]);
  return Buffer.concat([head, payload]);
}

function broadcast(payload) {
  const out = frame(0x1, payload);
  for (const c of clients) {
    if (dropEvery && ++deliveries % dropEvery === 0) continue;
    c.write(out);
  }
}

function onData(sock, state, chunk) {
  state.buf = state.buf.length ? Buffer.concat([state.buf, chunk]) : chunk;
  for (;;) {
    const b = state.buf;
    if (b.length < 2) return;
    const fin = b[0] & 0x80, opcode = b[0] & 0x0f, masked = b[1] & 0x80;
    let len = b[1] & 0x7f, off = 2;
    if (len === 126) { if (b.length < 4) return; len = b.readUInt16BE(2); off = 4; }
    else if (len === 127) { if (b.length < 10) return; len = Number(b.readBigUInt64BE(2)); off = 10; }
    if (!masked) { sock.destroy(); return; } // RFC 6455 5.1: clients must mask
    if (b.length < off + 4 + len) return;
    const mask = b.subarray(off, off + 4);
    const payload = Buffer.from(b.subarray(off + 4, off + 4 + len));
    for (let i = 0; i < len; i++) payload[i] ^= mask[i & 3];
    state.buf = b.subarray(off + 4 + len);
    if (opcode === 0x8) { sock.end(frame(0x8, payload)); clients.delete(sock); return; }
    if (opcode === 0x9) { sock.write(frame(0xA, payload)); continue; }
    if (opcode === 0x0 || opcode === 0x1 || opcode === 0x2) {
      state.parts.push(payload);
      if (fin) { broadcast(Buffer.concat(state.parts)); state.parts = []; }
    }
  }
}

const server = http.createServer((req, res) => { res.writeHead(426); res.end('WebSocket only\n'); });
server.on('upgrade', (req, sock) => {
  const key = req.headers['sec-websocket-key'];
  if (!key || (req.headers.upgrade || '').toLowerCase() !== 'websocket') { sock.destroy(); return; }
  const accept = crypto.createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  sock.setNoDelay(true);
  sock.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
    `Sec-WebSocket-Accept: ${accept}\r\n\r\n`);
  const state = { buf: Buffer.alloc(0), parts: [] };
  clients.add(sock);
  sock.on('data', (chunk) => onData(sock, state, chunk));
  sock.on('close', () => clients.delete(sock));
  sock.on('error', () => clients.delete(sock));
});
server.listen(port, '127.0.0.1', () => console.log(`port ${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
