// node:http hello world (Node.js); Content-Length as Bun.serve and Deno.serve send it (writeHead without
// it makes node:http answer chunked)
const http = require('node:http');
const body = 'Hello, World!';
const headers = { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(body) };
http.createServer((req, res) => {
  res.writeHead(200, headers);
  res.end(body);
}).listen(Number(process.env.PORT || 3000), '127.0.0.1');
