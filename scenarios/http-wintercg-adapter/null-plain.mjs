// The adapter's cost is measured against this: the runtime's plain node:http server on a null handler, answering
// what the null handler of null-adapter answers ("Hello, World!", text/plain, its Content-Length), with no
// Request or Response made (docs/scenario.md, "Adapters").
import http from 'node:http';
import { Buffer } from 'node:buffer';
import process from 'node:process';

const body = 'Hello, World!';
const headers = { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(body) };
http.createServer((req, res) => {
  res.writeHead(200, headers);
  res.end(body);
}).listen(Number(process.env.PORT || 3000), '127.0.0.1');
