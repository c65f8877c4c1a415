// The adapter on a null handler: node-adapter.mjs in front of a fetch that answers "Hello, World!" without
// rendering, the side of the adapter's cost that null-plain.mjs is measured against (docs/scenario.md, "Adapters").
import { serve } from './node-adapter.mjs';

serve({
  fetch() {
    return new Response('Hello, World!', { headers: { 'Content-Type': 'text/plain' } });
  },
});
