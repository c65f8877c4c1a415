// Deno.serve with the module's fetch handler.
import app from './app.js';
Deno.serve({ port: Number(Deno.env.get('PORT') || 3000), hostname: '127.0.0.1', onListen() {} }, app.fetch);
