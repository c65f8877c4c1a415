// Node has no fetch-handler server: this adapter, userland code (not part of Node), turns node:http requests
// into Request objects and Responses back into node:http's. Its cost is in the row of every runtime serving
// through it; harness measures it on a null handler and prints it beside the row (docs/scenario.md, "Adapters").
// The body goes out with its Content-Length, as the fetch servers of Bun, Deno and workerd send it. Everything
// comes from node: modules, so Bun and Deno run this same code (http-wintercg-adapter).
import http from 'node:http';
import { Buffer } from 'node:buffer';
import process from 'node:process';

export function serve(app) {
  http.createServer(async (req, res) => {
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers: req.headers });
    const response = await app.fetch(request);
    const body = Buffer.from(await response.arrayBuffer());
    const headers = Object.fromEntries(response.headers);
    headers['content-length'] = body.length;
    res.writeHead(response.status, headers);
    res.end(body);
  }).listen(Number(process.env.PORT || 3000), '127.0.0.1');
}
