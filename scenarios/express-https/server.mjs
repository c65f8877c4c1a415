// Express 5 hello world behind https.createServer: each runtime terminates TLS itself, with the throwaway
// certificate harness makes for the run (TLS_CERT, TLS_KEY).
import { readFileSync } from 'node:fs';
import https from 'node:https';
import express from 'express';

const app = express();
app.get('/', (req, res) => {
  res.type('text/plain').send('Hello, World!');
});
https
  .createServer({ key: readFileSync(process.env.TLS_KEY), cert: readFileSync(process.env.TLS_CERT) }, app)
  .listen(Number(process.env.PORT || 3443), '127.0.0.1');
