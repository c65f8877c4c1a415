// Node has no fetch-handler server: this adapter, userland code (not part of Node), turns node:http requests
// into Request objects and Responses back into node:http's; its cost is part of Node's row (docs/scenario.md,
// "Adapters"). The body goes out with its Content-Length, as the fetch servers of Bun, Deno and workerd send it.
import http from 'node:http';
import app from './app.js';

http.createServer(async (req, res) => {
  const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers: req.headers });
  const response = await app.fetch(request);
  const body = Buffer.from(await response.arrayBuffer());
  const headers = Object.fromEntries(response.headers);
  headers['content-length'] = body.length;
  res.writeHead(response.status, headers);
  res.end(body);
}).listen(Number(process.env.PORT || 3000), '127.0.0.1');
