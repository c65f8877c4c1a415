// Bun serves a default export with fetch itself; this adds the address.
import app from './app.js';
export default { port: Number(process.env.PORT || 3000), hostname: '127.0.0.1', fetch: app.fetch };
