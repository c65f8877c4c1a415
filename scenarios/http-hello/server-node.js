// node:http hello world (Node.js)
const http = require('node:http');
http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end('Hello, World!');
}).listen(Number(process.env.PORT || 3000), '127.0.0.1');
