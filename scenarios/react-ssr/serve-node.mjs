// Node has no fetch-handler server: this native adapter turns node:http requests into Request objects.
import http from 'node:http';
import app from './app.js';

http.createServer(async (req, res) => {
  const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers: req.headers });
  const response = await app.fetch(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}).listen(Number(process.env.PORT || 3000), '127.0.0.1');
