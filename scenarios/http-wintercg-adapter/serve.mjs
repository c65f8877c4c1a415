// The same code on every runtime: the fetch module through node-adapter.mjs over node:http, which Node, Bun and
// Deno each implement. Beside http-wintercg, where Bun and Deno serve the module with their own fetch servers,
// this row reads "the runtime through Node's adapter" (docs/scenario.md, "Adapters").
import { serve } from './node-adapter.mjs';
import app from './fetch.js';

serve(app);
