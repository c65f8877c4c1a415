// Node serves the page's fetch module through node-adapter.mjs (userland code, not part of Node).
import { serve } from './node-adapter.mjs';
import app from './app.js';

serve(app);
