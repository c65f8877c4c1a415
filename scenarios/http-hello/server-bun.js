// Bun.serve hello world
Bun.serve({
  port: Number(process.env.PORT || 3000),
  hostname: '127.0.0.1',
  fetch() {
    return new Response('Hello, World!', { headers: { 'Content-Type': 'text/plain' } });
  },
});
