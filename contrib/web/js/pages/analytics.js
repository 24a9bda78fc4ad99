// Analytics: monthly spend by category (stacked bars, with budgets),
// one merchant's history, subscriptions, fees and interest.
import * as api from '../api.js';
import { h, clear, field, select, messages, act, title, label, monthISO } from '../ui.js';
import { formatMoney, toCents } from '../money.js';
import { stackedBars, line } from '../chart.js';

export async function render(main) {
  const box = messages();
  const from = h('input', { type: 'month', name: 'from', value: monthISO(-11) });
  const to = h('input', { type: 'month', name: 'to', value: monthISO() });
  const basis = select([['gross', 'whole amounts'], ['mine', 'my share']], 'gross', { name: 'basis' });
  const form = h('form', { class: 'inline', 'aria-label': 'Range' }, field('From month', from), field('To month', to),
    field('Basis', basis, 'Whole amounts, or your part of each (rows shared with you included)'),
    h('button', { type: 'submit', class: 'primary' }, 'Show'));
  const monthly = h('section', { 'aria-labelledby': 'h-monthly' });
  const merchant = h('section', { 'aria-labelledby': 'h-merchant' });
  const subs = h('section', { 'aria-labelledby': 'h-subs' });
  const fees = h('section', { 'aria-labelledby': 'h-fees' });
  form.addEventListener('submit', (e) => { e.preventDefault(); load(); });
  main.append(title('Analytics'), box, form, monthly, merchant, subs, fees);

  async function load() {
    await act(box, async () => {
      const range = { from: from.value, to: to.value, basis: basis.value };
      const [m, top, sub] = await Promise.all([api.get('/analytics/monthly', range), api.get('/analytics/merchants', range), api.get('/analytics/subscriptions')]);
      const keys = [...new Set(m.items.flatMap((x) => x.categories.map((c) => c.category)))];
      clear(monthly, h('h3', { id: 'h-monthly' }, 'Monthly spend by category'),
        stackedBars('Monthly spend by category', m.items.map((x) => ({ label: x.month.slice(2), parts: x.categories.map((c) => ({ key: c.category, cents: toCents(c.total) })) })), keys),
        h('div', { class: 'table-wrap' }, h('table', { class: 'monthly' }, h('caption', { class: 'sr-only' }, 'Monthly totals'),
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Month'), h('th', { scope: 'col', class: 'num' }, 'Total'), h('th', { scope: 'col' }, 'Largest categories'))),
          h('tbody', {}, m.items.map((x) => h('tr', {}, h('th', { scope: 'row' }, x.month), h('td', { class: 'num' }, formatMoney(x.total)),
            h('td', {}, [...x.categories].sort((a, b) => toCents(b.total) - toCents(a.total)).slice(0, 4)
              .map((c) => `${label(c.category)} ${formatMoney(c.total)}${c.budget !== null && c.budget !== undefined ? ` of ${formatMoney(c.budget)}` : ''}`).join(', '))))))));
      const names = top.items.map((x) => x.merchant);
      const msel = select(names.length ? names : [['', 'no merchants in range']], names[0] || '', { name: 'merchant' });
      const hist = h('div', { 'aria-live': 'polite' });
      let histSeq = 0;
      // The history shown is always the chosen merchant's: cleared at once,
      // drawn from the latest answer only.
      const showMerchant = async () => {
        const seq = ++histSeq;
        const name = msel.value;
        clear(hist);
        if (!name) return;
        // A URL path cannot carry the segment "." or ".." (the browser
        // resolves it away, %2E too), so the service cannot be asked.
        if (name === '.' || name === '..') {
          hist.append(h('p', {}, `The history of a merchant named “${name}” cannot be asked for: the name is not a usable path segment.`));
          return;
        }
        await act(box, async () => {
          const r = await api.get(`/analytics/merchants/${encodeURIComponent(name)}`, { from: from.value, to: to.value, basis: range.basis });
          if (seq !== histSeq) return;
          clear(hist, line(`Monthly spend at ${name}`, r.items.map((x) => ({ label: x.month.slice(2), cents: toCents(x.total) }))),
            h('p', {}, `Total ${formatMoney(r.spend)}.`));
        });
      };
      msel.addEventListener('change', showMerchant);
      // The merchant list and history follow the Basis, as the monthly
      // spend does, and say which they show.
      clear(merchant, h('h3', { id: 'h-merchant' }, 'Merchant history'),
        h('p', { class: 'hint' }, range.basis === 'mine'
          ? 'My share: your part of each amount, rows shared with you included.'
          : 'Whole amounts.'),
        h('ol', { class: 'top-merchants' }, top.items.slice(0, 10).map((x) => h('li', {}, `${x.merchant}: ${formatMoney(x.total)} (${x.count})`))),
        h('div', { class: 'inline' }, field('Merchant', msel)), hist);
      await showMerchant();
      clear(subs, h('h3', { id: 'h-subs' }, 'Subscriptions'), sub.items.length ? h('div', { class: 'table-wrap' }, h('table', { class: 'subs' },
        h('caption', { class: 'sr-only' }, 'Recurring charges'),
        h('thead', {}, h('tr', {}, ['Merchant', 'Every', 'Typical', 'Per year', 'Next', 'Active'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, sub.items.map((x) => h('tr', {}, h('th', { scope: 'row' }, x.merchant), h('td', {}, x.cadence),
          h('td', { class: 'num' }, formatMoney(x.typical_amount)), h('td', { class: 'num' }, formatMoney(x.annual_cost)),
          h('td', {}, x.next_expected || '—'), h('td', {}, x.active ? 'yes' : 'no')))))) : h('p', {}, 'No recurring charges found.'));
      try {
        const f = await api.get('/analytics/fees', { from: from.value, to: to.value });
        const months = f.by_month || [];
        clear(fees, h('h3', { id: 'h-fees' }, 'Fees and interest'), months.length ? h('ul', {}, months.map((x) => h('li', {},
          `${x.month}: fees ${formatMoney(x.fees ?? 0)}, interest ${formatMoney(x.interest ?? 0)}`))) : h('p', {}, 'None in this range.'));
      } catch { clear(fees); }
    });
  }
  await load();
}
