// complex.js of the WinterCG comparison: a React page rendered to a string per request, behind the same
// `export default { fetch }` module shape as http-wintercg. Plain createElement calls, no JSX: every
// runtime loads it as it is (workerd through a bundle). The page is fixed, so every runtime's body is the
// same bytes and the load client checks every body against its length and SHA-256 (scenario.json).
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';

const ROWS = 100;
const items = Array.from({ length: ROWS }, (_, i) => ({
  id: i + 1,
  name: `Item ${i + 1}`,
  price: ((i * 37) % 1000) / 10 + 1,
  tags: ['red', 'green', 'blue'].filter((_, k) => (i + k) % 2 === 0),
}));

function Row({ item }) {
  return h('tr', { className: item.id % 2 ? 'odd' : 'even' },
    h('td', null, item.id),
    h('td', null, h('a', { href: `/items/${item.id}` }, item.name)),
    h('td', null, item.price.toFixed(2)),
    h('td', null, item.tags.join(', ')));
}

function Page() {
  return h('html', { lang: 'en' },
    h('head', null, h('meta', { charSet: 'utf-8' }), h('title', null, 'harness react-ssr')),
    h('body', null,
      h('h1', null, 'Catalogue'),
      h('table', null,
        h('thead', null, h('tr', null, ['Id', 'Name', 'Price', 'Tags'].map((t) => h('th', { key: t }, t)))),
        h('tbody', null, items.map((item) => h(Row, { key: item.id, item })))),
      h('footer', null, `${ROWS} rows`)));
}

export default {
  fetch() {
    const html = '<!DOCTYPE html>' + renderToString(h(Page));
    return new Response(html, { headers: { 'Content-Type': 'text/html; charset=utf-8' } });
  },
};
