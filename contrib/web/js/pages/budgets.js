// Budgets: a standing monthly amount per category, with this month's spend.
import * as api from '../api.js';
import { h, clear, field, select, messages, say, act, onAct, title, categoryLabel as label, UNCATEGORISED, monthISO } from '../ui.js';
import { formatMoney, formatCents, toCents, parseMoneyInput, moneyJSON } from '../money.js';

// The budget as the table shows it: its amount (the spend moves with
// every row, and is read afresh anyway).
const SAME_BUDGET = api.sameFields('amount');

export async function render(main) {
  const box = messages();
  const shown = new Map(); // category -> the budget the table shows
  const cats = (await api.get('/categories')).items.map((c) => c.category);
  const month = h('input', { type: 'month', name: 'month', value: monthISO() });
  const tbody = h('tbody');
  // The spend with no category has a budget too (PUT /budgets/uncategorised).
  const cat = select(cats.filter((c) => c !== UNCATEGORISED).concat(UNCATEGORISED).map((c) => [c, label(c)]), 'groceries', { name: 'category' });
  const amount = h('input', { type: 'text', name: 'amount', inputmode: 'decimal', required: true });
  const form = h('form', { class: 'inline', 'aria-label': 'Set a budget' }, field('Category', cat), field('Monthly amount', amount),
    h('button', { type: 'submit', class: 'primary' }, 'Set budget'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(box, async () => {
      let c;
      try { c = parseMoneyInput(amount.value); } catch (err) { throw Object.assign(err, { field: 'amount' }); }
      // A budget the table shows is replaced only as shown (If-Match):
      // one changed elsewhere since is shown anew, the amount typed kept.
      const had = shown.get(cat.value);
      const path = `/budgets/${encodeURIComponent(cat.value)}`;
      try {
        if (had) await api.writeShown('PUT', path, { amount: moneyJSON(c) }, had, SAME_BUDGET);
        else await api.put(path, { amount: moneyJSON(c) });
      } catch (err) {
        if (!(err instanceof api.StaleError)) throw err;
        await load();
        say(box, `Someone changed the ${label(cat.value)} budget since this page showed it: it is now ${formatMoney(err.current.amount)} (in the table), and your ${formatCents(c)} was not saved. Set budget again to replace it.`, 'stale');
        return;
      }
      say(box, `Budget for ${label(cat.value)} set to ${formatCents(c)}.`);
      amount.value = '';
      await load();
    }, form);
  });
  // An emptied month field means this month again, shown in the field.
  month.addEventListener('change', () => { if (!month.value) month.value = monthISO(); load(); });
  main.append(title('Budgets'), box, form, h('div', { class: 'inline' }, field('Month', month)),
    h('div', { class: 'table-wrap' }, h('table', { class: 'budgets' }, h('caption', { class: 'sr-only' }, 'Budgets and spend'),
      h('thead', {}, h('tr', {}, ['Category', 'Budget', 'Spent', 'Remaining', 'Used', ''].map((t) => h('th', { scope: 'col' }, t)))), tbody)));

  async function load() {
    await act(box, async () => {
      const res = await api.get('/budgets', { month: month.value });
      shown.clear();
      for (const b of res.items) shown.set(b.category, b);
      clear(tbody);
      if (!res.items.length) tbody.append(h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'No budgets yet.')));
      for (const b of res.items) {
        const a = toCents(b.amount), sp = toCents(b.spent);
        // Refunds larger than the spend leave 0% used, not less.
        const pct = a > 0 ? Math.max(0, Math.min(100, Math.round((sp * 100) / a))) : (sp > 0 ? 100 : 0);
        tbody.append(h('tr', { dataset: { category: b.category } },
          h('th', { scope: 'row' }, label(b.category)),
          h('td', { class: 'num' }, formatMoney(b.amount)), h('td', { class: 'num' }, formatMoney(b.spent)),
          h('td', { class: `num ${toCents(b.remaining) < 0 ? 'out' : ''}` }, formatMoney(b.remaining)),
          h('td', {}, h('div', { class: 'bar-track', role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': pct, 'aria-label': `${label(b.category)} used` },
            h('div', { class: `bar-fill ${sp > a ? 'over' : ''}`, style: `width:${pct}%` }))),
          h('td', {}, h('button', { type: 'button', class: 'small danger', 'aria-label': `Remove the ${label(b.category)} budget`, onclick: onAct(box, async () => {
            try {
              await api.writeShown('DELETE', `/budgets/${encodeURIComponent(b.category)}`, undefined, b, SAME_BUDGET);
            } catch (err) {
              if (!(err instanceof api.StaleError)) throw err;
              await load();
              say(box, `Someone changed the ${label(b.category)} budget since this page showed it: it is now ${formatMoney(err.current.amount)}, and it was not removed. Remove it again to remove this version.`, 'stale');
              return;
            }
            say(box, `Budget for ${label(b.category)} removed.`);
            await load();
          }) }, 'Remove'))));
      }
    });
  }
  await load();
}
