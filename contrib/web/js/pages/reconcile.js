// Reconcile: each unreconciled manual row with its statement candidates
// (within 3 days and 1%); choose one per row and apply them all at once.
import * as api from '../api.js';
import { h, clear, messages, say, act, title } from '../ui.js';
import { formatMoney } from '../money.js';

export async function render(main) {
  const box = messages();
  const body = h('div');
  main.append(title('Reconcile'), h('p', {}, 'Match manual and imported rows with the statement rows they became. Applying copies categories, tags and splits to the statement row and hides the manual one.'), box, body);
  const undoable = [];

  async function load() {
    const data = await api.get('/reconcile');
    clear(body);
    const form = h('form', { 'aria-label': 'Matches to apply' });
    const choices = [];
    if (!data.pending.length) form.append(h('p', {}, 'Nothing waits for a match.'));
    for (const p of data.pending) {
      const t = p.transaction;
      const name = `match-${t.id}`;
      const radios = [['', 'Leave unmatched']].concat(p.candidates.map((c) => [String(c.id),
        `${c.date} · ${c.description} · ${formatMoney(c.amount, c.currency)} · ${c.bank_name}`]));
      const fs = h('fieldset', { class: 'card', dataset: { manualId: t.id } },
        h('legend', {}, `${t.date} · ${t.description} · ${formatMoney(t.amount, t.currency)}`),
        h('ul', { class: 'candidates' }, radios.map(([v, text], i) => {
          const id = `${name}-${v || 'none'}`;
          // The closest candidate comes first and is suggested.
          return h('li', {}, h('input', { type: 'radio', name, id, value: v, checked: i === 1 || (i === 0 && radios.length === 1) }), ' ', h('label', { for: id }, text));
        })));
      choices.push({ t, name });
      form.append(fs);
    }
    if (data.pending.length) {
      form.append(h('div', { class: 'actions' },
        h('button', { type: 'button', onclick: () => form.querySelectorAll('input[type=radio][value=""]').forEach((r) => { r.checked = true; }) }, 'Clear all choices'),
        h('button', { type: 'submit', class: 'primary' }, 'Apply selected matches')));
    }
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      act(box, async () => {
        const matches = [];
        for (const c of choices) {
          const v = form.querySelector(`input[name="${c.name}"]:checked`)?.value;
          if (v) matches.push({ manual_id: c.t.id, statement_transaction_id: Number(v) });
        }
        if (!matches.length) throw new Error('Choose at least one candidate.');
        await api.post('/reconcile', { matches });
        for (const m of matches) undoable.push({ ...m, label: choices.find((c) => c.t.id === m.manual_id).t.description });
        say(box, `Reconciled ${matches.length} transaction${matches.length === 1 ? '' : 's'}.`);
        await load();
      }, form);
    });
    body.append(form);
    body.append(h('h3', {}, `Without candidates (${data.unmatched.length})`),
      data.unmatched.length ? h('ul', {}, data.unmatched.map((u) => { const t = u.transaction || u; return h('li', {}, `${t.date} · ${t.description} · ${formatMoney(t.amount, t.currency)}`); }))
        : h('p', {}, 'None.'));
    if (undoable.length) {
      body.append(h('h3', {}, 'Reconciled in this visit'), h('ul', {}, undoable.map((u, i) => h('li', {}, `${u.label} `,
        h('button', { type: 'button', class: 'small', 'aria-label': `Undo reconciling ${u.label}`, onclick: () => act(box, async () => {
          await api.del(`/reconcile/${u.manual_id}`);
          undoable.splice(i, 1);
          say(box, `Undid the match of “${u.label}”.`);
          await load();
        }) }, 'Undo')))));
    }
  }
  await load();
}
