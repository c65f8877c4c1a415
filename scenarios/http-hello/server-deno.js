// Deno.serve hello world
Deno.serve({ port: Number(Deno.env.get('PORT') || 3000), hostname: '127.0.0.1', onListen() {} }, () =>
  new Response('Hello, World!', { headers: { 'Content-Type': 'text/plain' } }));
