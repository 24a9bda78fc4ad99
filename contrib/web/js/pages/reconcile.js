// Reconcile: each unreconciled manual row with its statement candidates
// (within 3 days and 1%); choose one per row and apply them all at once.
// GET /reconcile is paged (keyset, next_cursor): a page of PAGE rows at a
// time, with Previous/Next.
import * as api from '../api.js';
import { h, clear, messages, say, act, onAct, title } from '../ui.js';
import { formatMoney } from '../money.js';

const PAGE = 50;

const rowText = (t) => `“${t.description}” of ${t.date} (${formatMoney(t.amount, t.currency)})`;

// The API names a row by id ("transaction 12 is already reconciled"); the
// page shows rows by date, description and amount: the manual rows and
// their candidates on screen name it so.
function nameRows(message, choices) {
  const known = new Map();
  for (const c of choices) {
    known.set(c.t.id, c.t);
    for (const x of c.candidates) known.set(x.id, x);
  }
  return String(message).replace(/\btransaction (\d+)\b/g, (all, id) => (known.has(Number(id)) ? `the row ${rowText(known.get(Number(id)))}` : all));
}

export async function render(main) {
  const box = messages();
  const body = h('div');
  main.append(title('Reconcile'), h('p', {}, 'Match manual and imported rows with the statement rows they became. Applying copies categories, tags and splits to the statement row and hides the manual one.'), box, body);
  const undoable = [];
  let cursor = null; // this page's cursor (null: the first page)
  const back = []; // the cursors of the pages before it

  async function load() {
    const data = await api.get('/reconcile', { limit: PAGE, cursor });
    const shown = data.pending.length + data.unmatched.length;
    // Everything on a later page was reconciled meanwhile: step back.
    if (!shown && back.length) {
      cursor = back.pop();
      await load();
      return;
    }
    clear(body);
    const form = h('form', { 'aria-label': 'Matches to apply' });
    const choices = [];
    const paged = back.length > 0 || !!data.next_cursor;
    if (!data.pending.length) form.append(h('p', {}, paged ? 'Nothing on this page waits for a match.' : 'Nothing waits for a match.'));
    // Each row's closest candidate is suggested, unless an earlier row
    // already has it: one statement row matches one manual row.
    const taken = new Set();
    for (const p of data.pending) {
      const t = p.transaction;
      const name = `match-${t.id}`;
      const pick = p.candidates.find((c) => !taken.has(c.id));
      if (pick) taken.add(pick.id);
      const radios = [['', 'Leave unmatched']].concat(p.candidates.map((c) => [String(c.id),
        `${c.date} · ${c.description} · ${formatMoney(c.amount, c.currency)} · ${c.bank_name}`]));
      const fs = h('fieldset', { class: 'card', dataset: { manualId: t.id } },
        h('legend', {}, `${t.date} · ${t.description} · ${formatMoney(t.amount, t.currency)}`),
        h('ul', { class: 'candidates' }, radios.map(([v, text]) => {
          const id = `${name}-${v || 'none'}`;
          return h('li', {}, h('input', { type: 'radio', name, id, value: v, checked: pick ? v === String(pick.id) : v === '' }), ' ', h('label', { for: id }, text));
        })));
      choices.push({ t, name, candidates: p.candidates });
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
        const by = new Map(); // statement row id -> the choice that has it
        for (const c of choices) {
          const radio = form.querySelector(`input[name="${c.name}"]:checked`);
          const v = radio?.value;
          if (!v) continue;
          const other = by.get(v);
          if (other) {
            radio.setAttribute('aria-invalid', 'true');
            radio.focus();
            const st = c.candidates.find((x) => String(x.id) === v);
            throw new Error(`“${other.t.description}” (${other.t.date}) and “${c.t.description}” (${c.t.date}) both have the statement row “${st.description}” of ${st.date}: a statement row matches one manual row. Choose another or leave one unmatched.`);
          }
          by.set(v, c);
          matches.push({ manual_id: c.t.id, statement_transaction_id: Number(v) });
        }
        if (!matches.length) throw new Error('Choose at least one candidate.');
        try {
          await api.post('/reconcile', { matches });
        } catch (err) {
          if (err.status !== 409) throw err;
          // A row was reconciled meanwhile (another tab): nothing was
          // applied, and the list on screen is stale.  The list again, so
          // the other matches can be applied, and the row named as shown.
          err.message = `${nameRows(err.message, choices)} Nothing was applied; the list is reloaded, so apply the remaining matches again.`;
          await load();
          throw err;
        }
        for (const m of matches) undoable.push({ ...m, label: choices.find((c) => c.t.id === m.manual_id).t.description });
        say(box, `Reconciled ${matches.length} transaction${matches.length === 1 ? '' : 's'}.`);
        await load();
      }, form);
    });
    // The pager first: how many wait, and the way to the rest.
    const from = back.length * PAGE + 1;
    const summary = h('p', { class: 'summary' }, shown ? `${from}–${from + shown - 1} of ${data.total} waiting` : '0 waiting');
    const prev = h('button', { type: 'button', disabled: !back.length, onclick: onAct(box, async () => { cursor = back.pop() ?? null; await load(); }) }, '← Previous');
    const next = h('button', { type: 'button', disabled: !data.next_cursor, onclick: onAct(box, async () => { back.push(cursor); cursor = data.next_cursor; await load(); }) }, 'Next →');
    body.append(h('nav', { class: 'pager', 'aria-label': 'Pages of rows to reconcile' }, prev, summary, next));
    body.append(form);
    body.append(h('h3', {}, `Without candidates${paged ? ' on this page' : ''} (${data.unmatched.length})`),
      data.unmatched.length ? h('ul', { class: 'unmatched' }, data.unmatched.map((u) => { const t = u.transaction || u; return h('li', {}, `${t.date} · ${t.description} · ${formatMoney(t.amount, t.currency)}`); }))
        : h('p', {}, 'None.'));
    if (undoable.length) {
      body.append(h('h3', {}, 'Reconciled in this visit'), h('ul', {}, undoable.map((u, i) => h('li', {}, `${u.label} `,
        h('button', { type: 'button', class: 'small', 'aria-label': `Undo reconciling ${u.label}`, onclick: onAct(box, async () => {
          await api.del(`/reconcile/${u.manual_id}`);
          undoable.splice(i, 1);
          say(box, `Undid the match of “${u.label}”.`);
          await load();
        }) }, 'Undo')))));
    }
  }
  await load();
}
