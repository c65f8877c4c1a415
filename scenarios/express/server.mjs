// Express 5 hello world, the same file on every runtime that runs it.
import express from 'express';

const app = express();
app.get('/', (req, res) => {
  res.type('text/plain').send('Hello, World!');
});
app.listen(Number(process.env.PORT || 3000), '127.0.0.1');
