// The router: #/page?params picks one page module, which renders into
// <main>.  Focus moves to the page heading so keyboard and screen reader
// users land on the new content.
import { me } from './api.js';
import { setHomeCurrency, homeCurrency } from './money.js';
import { h, clear } from './ui.js';

const pages = {
  transactions: () => import('./pages/transactions.js'),
  statements: () => import('./pages/statements.js'),
  import: () => import('./pages/import.js'),
  reconcile: () => import('./pages/reconcile.js'),
  rules: () => import('./pages/rules.js'),
  trips: () => import('./pages/trips.js'),
  budgets: () => import('./pages/budgets.js'),
  analytics: () => import('./pages/analytics.js'),
};

const main = document.getElementById('main');
let generation = 0;

async function route() {
  const name = (location.hash.replace(/^#\/?/, '').split(/[?/]/)[0]) || 'transactions';
  const load = pages[name];
  const gen = ++generation;
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.getAttribute('href') === `#/${name}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (!load) {
    clear(main, h('h2', { tabindex: '-1' }, 'Not found'), h('p', {}, 'No such page. ', h('a', { href: '#/transactions' }, 'Transactions')));
    return;
  }
  main.setAttribute('aria-busy', 'true');
  try {
    const mod = await load();
    if (gen !== generation) return;
    clear(main);
    await mod.render(main);
  } catch (e) {
    clear(main, h('h2', {}, 'Something went wrong'), h('p', { class: 'msg error', role: 'alert' }, e.message));
  } finally {
    if (gen === generation) {
      main.removeAttribute('aria-busy');
      document.title = `${main.querySelector('h2')?.textContent || 'Ledger'} · Ledger`;
      if (routed) main.querySelector('h2')?.focus();
      routed = true;
    }
  }
}
let routed = false;

// Who is signed in, and the home currency every amount without its own
// currency is in, before the first page draws any amount.
me().then((u) => {
  setHomeCurrency(u.home_currency);
  document.getElementById('who').textContent = `Signed in as ${u.name || u.email || `user ${u.id}`} · amounts in ${homeCurrency()}`;
}).catch(() => {
  document.getElementById('who').textContent = 'Not signed in';
}).finally(() => {
  window.addEventListener('hashchange', route);
  route();
});
