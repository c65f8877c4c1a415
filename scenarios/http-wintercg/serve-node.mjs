// Node serves the fetch module through node-adapter.mjs (userland code, not part of Node). fetch.js is itself a
// null handler, so this file is also the adapter side of the cost harness measures (scenario.json's adapter_cost).
import { serve } from './node-adapter.mjs';
import app from './fetch.js';

serve(app);
