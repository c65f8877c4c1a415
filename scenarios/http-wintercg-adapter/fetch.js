// The WinterCG-style module every runtime serves: a default export with a fetch handler.
export default {
  fetch(request) {
    return new Response('Hello, World!', { headers: { 'Content-Type': 'text/plain' } });
  },
};
