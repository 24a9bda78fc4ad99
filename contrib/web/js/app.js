// The router: #/page?params picks one page module, which renders into
// <main>.  Focus moves to the page heading so keyboard and screen reader
// users land on the new content.
import { me, ApiError } from './api.js';
import { setHomeCurrency, homeCurrency } from './money.js';
import { h, clear } from './ui.js';

const pages = {
  transactions: () => import('./pages/transactions.js'),
  statements: () => import('./pages/statements.js'),
  import: () => import('./pages/import.js'),
  reconcile: () => import('./pages/reconcile.js'),
  rules: () => import('./pages/rules.js'),
  suggestions: () => import('./pages/suggestions.js'),
  trips: () => import('./pages/trips.js'),
  budgets: () => import('./pages/budgets.js'),
  analytics: () => import('./pages/analytics.js'),
  export: () => import('./pages/export.js'),
};

const main = document.getElementById('main');
let generation = 0;

// Who is signed in, and the home currency every amount without its own
// currency is in.  Asked before each page draws until the service has
// answered: a 502/503 while the service restarts is not "not signed in",
// and the next page (or the header's "Try again") asks again.
let user = null;
async function whoAmI() {
  if (user) return;
  const who = document.getElementById('who');
  try {
    user = await me();
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      clear(who, 'Not signed in: sign in again, then reload this page.');
    } else {
      // A failed answer is not kept (api.cached), so asking again asks the
      // service.
      clear(who, 'The service is not answering just now, so who is signed in and the home currency are not known (amounts are shown without a currency symbol). ',
        h('button', { type: 'button', class: 'small', onclick: () => route(true) }, 'Try again'));
    }
    return;
  }
  setHomeCurrency(user.home_currency);
  clear(who, `Signed in as ${user.name || user.email || `user ${user.id}`} · amounts in ${homeCurrency() || user.home_currency}`);
}

// The page name of the hash: "#/budgets?x=1" -> budgets.  A hash without
// "#/" is an anchor in the page (the skip link's "#main"), no page name.
const pageName = () => (location.hash.startsWith('#/') || !location.hash
  ? (location.hash.replace(/^#\/?/, '').split(/[?/]/)[0]) || 'transactions'
  : null);
let shown = null; // the page on screen

// again: draw the page on screen afresh (the header's "Try again").
async function route(again = false) {
  let name = pageName();
  if (name === null) {
    if (shown && !again) return; // an anchor: the page stays as it is
    name = shown || 'transactions';
  }
  const load = pages[name];
  const gen = ++generation;
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.getAttribute('href') === `#/${name}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  shown = name;
  if (!load) {
    clear(main, h('h2', { tabindex: '-1' }, 'Not found'), h('p', {}, 'No such page. ', h('a', { href: '#/transactions' }, 'Transactions')));
    return;
  }
  main.setAttribute('aria-busy', 'true');
  try {
    await whoAmI();
    const mod = await load();
    if (gen !== generation) return;
    clear(main);
    await mod.render(main);
  } catch (e) {
    if (gen !== generation) return;
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

// "Skip to content" moves focus to <main>; the hash (the page's name)
// stays, so the router does not take "#main" for a page.
document.querySelector('a.skip')?.addEventListener('click', (e) => {
  e.preventDefault();
  main.focus();
  main.scrollIntoView();
});

window.addEventListener('hashchange', () => route());
route();
