// Transactions: the query bar (>N, <N, N-M and text), filters, sorting,
// paging, a new manual row, inline edit of one row (overrides, type,
// payment method, tags, splits with participants) and bulk actions on a
// selection (the fixed ones and the user's quick-action rules).
import * as api from '../api.js';
import { h, clear, field, select, messages, say, act, onAct, showError, clearErrors, title, label, TYPES, PAYMENT_METHODS, UNCATEGORISED, hashParams, todayISO } from '../ui.js';
import { formatMoney, parseMoneyInput, moneyJSON, parsePercentInput, formatPercent, toCents, centsToDecimal } from '../money.js';

// seq numbers the list's loads: only the latest one draws.
const state = { offset: 0, limit: 50, selected: new Set(), rows: [], total: 0, seq: 0 };

// Amounts are magnitudes; the type says which way the money went.
function magnitude(text, fieldName) {
  let cents;
  try { cents = parseMoneyInput(text); } catch (err) { throw Object.assign(err, { field: fieldName }); }
  if (cents < 0) {
    throw Object.assign(new Error('Enter the amount without a sign, and choose the type: debit for money out, credit or refund for money in'), { field: fieldName });
  }
  return cents;
}

export async function render(main) {
  const [cats, tags, trips, participants, statements, rules, me] = await Promise.all([
    api.get('/categories'), api.get('/tags'), api.get('/trips'), api.get('/participants'), api.get('/statements'),
    api.get('/rules'), api.me(),
  ]);
  const ctx = {
    me,
    categories: cats.items.map((c) => c.category),
    tags: tags.items, trips: trips.items, participants: participants.items,
    banks: [...new Set(statements.items.map((x) => x.bank_name))].concat('Manual'),
    // manual_only rules run on a selection (POST /rules/{id}/run).
    quick: rules.items.filter((r) => r.manual_only && r.enabled),
  };
  state.offset = 0;
  state.selected.clear();
  const hp = hashParams();
  const box = messages();
  const catList = h('datalist', { id: 'category-list' }, ctx.categories.map((c) => h('option', { value: c })));

  // ---- the query bar and filters ----
  const q = h('input', { type: 'search', name: 'q', placeholder: 'e.g. coffee >10 or 20-50', value: hp.get('q') || '' });
  const f = {
    date_from: h('input', { type: 'date', name: 'date_from' }),
    date_to: h('input', { type: 'date', name: 'date_to' }),
    // "no category" is a filter value (categories[]=uncategorised), not a
    // category: the write fields do not offer it.
    category: select([['', 'any'], [UNCATEGORISED, 'no category']].concat(ctx.categories.filter((c) => c !== UNCATEGORISED).map((c) => [c, label(c)])), '', { name: 'category' }),
    type: select([['', 'any']].concat(TYPES), '', { name: 'type' }),
    bank: select([['', 'any']].concat(ctx.banks), '', { name: 'bank' }),
    tag: select([['', 'any']].concat(ctx.tags.map((t) => [t.id, t.name])), '', { name: 'tag' }),
    has_split: select([['all', 'all'], ['split', 'split only'], ['unsplit', 'unsplit only']], 'all', { name: 'has_split' }),
    trip: select([['', 'any']].concat(ctx.trips.map((t) => [t.id, t.name])), hp.get('trip_id') || '', { name: 'trip' }),
    transfers: h('input', { type: 'checkbox', name: 'transfers' }),
    sort: select([['date', 'date'], ['amount', 'amount'], ['created_at', 'imported'], ['merchant', 'merchant']], 'date', { name: 'sort' }),
    order: select([['desc', 'descending'], ['asc', 'ascending']], 'desc', { name: 'order' }),
    limit: select(['25', '50', '100', '200'], '50', { name: 'limit' }),
  };
  const statementId = hp.get('statement_id');
  const filters = h('form', { class: 'filters', role: 'search', 'aria-label': 'Find transactions' },
    h('div', { class: 'querybar' }, field('Search, or amounts (>N, <N, N-M)', q),
      h('button', { type: 'submit', class: 'primary' }, 'Search')),
    h('details', { class: 'more-filters' }, h('summary', {}, 'Filters and sorting'),
      h('div', { class: 'grid' },
        field('From date', f.date_from), field('To date', f.date_to), field('Category', f.category),
        field('Type', f.type), field('Bank', f.bank), field('Tag', f.tag), field('Splits', f.has_split),
        field('Trip', f.trip), field('Show transfers', f.transfers), field('Sort by', f.sort),
        field('Order', f.order), field('Rows per page', f.limit))),
    statementId ? h('p', { class: 'scope' }, `Showing statement ${statementId} only. `, h('a', { href: '#/transactions' }, 'Show all')) : null);
  // A trip's "Rows" link (#/transactions?trip_id=ID) opens with the trip
  // chosen, also one not in the list.
  const tripParam = hp.get('trip_id');
  if (tripParam && f.trip.value !== tripParam) {
    f.trip.append(h('option', { value: tripParam }, `trip ${tripParam}`));
    f.trip.value = tripParam;
  }
  filters.addEventListener('submit', (e) => { e.preventDefault(); state.offset = 0; load(); });
  for (const el of Object.values(f)) el.addEventListener('change', () => { state.offset = 0; load(); });

  // The tag list again after a tag was made (editor, bulk): the Tag filter,
  // the bulk lookup and the datalists use it.
  async function refreshTags() {
    const t = await api.get('/tags');
    ctx.tags.splice(0, ctx.tags.length, ...t.items);
    const v = f.tag.value;
    clear(f.tag, [['', 'any']].concat(ctx.tags.map((x) => [String(x.id), x.name])).map(([id, n]) => h('option', { value: id }, n)));
    f.tag.value = ctx.tags.some((x) => String(x.id) === v) ? v : '';
    fillBulkList();
  }
  ctx.refreshTags = refreshTags;

  function params() {
    const p = {
      q: q.value.trim(), date_from: f.date_from.value, date_to: f.date_to.value,
      'categories[]': f.category.value ? [f.category.value] : [],
      'transaction_types[]': f.type.value ? [f.type.value] : [],
      'bank_names[]': f.bank.value ? [f.bank.value] : [],
      'tag_ids[]': f.tag.value ? [f.tag.value] : [],
      // A trip's rows are every participant's rows of it, not only mine.
      has_split: f.has_split.value, trip_id: f.trip.value, trip_all_rows: f.trip.value ? 1 : undefined, statement_id: statementId,
      sort: f.sort.value, order: f.order.value, limit: f.limit.value, offset: state.offset,
    };
    return p;
  }

  // ---- new manual transaction ----
  const nt = {
    date: h('input', { type: 'date', name: 'date', required: true, value: todayISO() }),
    amount: h('input', { type: 'text', name: 'amount', inputmode: 'decimal', required: true, autocomplete: 'off' }),
    description: h('input', { type: 'text', name: 'description', required: true }),
    merchant: h('input', { type: 'text', name: 'merchant' }),
    transaction_type: select(TYPES, 'debit', { name: 'transaction_type' }),
    category: h('input', { type: 'text', name: 'category', list: 'category-list' }),
    payment_method: select(PAYMENT_METHODS, '', { name: 'payment_method' }),
  };
  const newForm = h('form', { class: 'grid', 'aria-label': 'New transaction' },
    field('Date', nt.date), field('Amount', nt.amount), field('Description', nt.description),
    field('Merchant', nt.merchant), field('Type', nt.transaction_type), field('Category', nt.category),
    field('Payment method', nt.payment_method),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Add transaction')));
  newForm.addEventListener('submit', (e) => {
    e.preventDefault();
    act(box, async () => {
      const cents = magnitude(nt.amount.value, 'amount');
      const body = {
        date: nt.date.value, amount: moneyJSON(cents), description: nt.description.value,
        transaction_type: nt.transaction_type.value,
      };
      if (nt.merchant.value) body.merchant = nt.merchant.value;
      if (nt.category.value) body.category = nt.category.value;
      if (nt.payment_method.value) body.payment_method = nt.payment_method.value;
      const row = await api.post('/transactions', body);
      nt.amount.value = ''; nt.description.value = ''; nt.merchant.value = '';
      // The news once the list shows it.
      await load();
      say(box, `Added “${row.description}” (${formatMoney(row.amount, row.currency)}).`);
    }, newForm);
  });

  // ---- bulk actions ----
  const bulkAction = select([['tag', 'Add tag'], ['untag', 'Remove tag'], ['categorize', 'Set category'],
    ['normalize', 'Set merchant'], ['assign_trip', 'Assign to trip']]
    .concat(ctx.quick.map((r) => [`rule:${r.id}`, `Rule: ${r.name}`])), 'tag', { name: 'action' });
  const bulkValue = h('input', { type: 'text', name: 'value', list: 'bulk-values' });
  const bulkValueField = field('Tag, category, merchant or trip', bulkValue);
  const bulkList = h('datalist', { id: 'bulk-values' });
  const bulkCount = h('span', { class: 'count', 'aria-live': 'polite' });
  const bulkForm = h('form', { class: 'bulk', 'aria-label': 'Bulk actions on the selected rows', hidden: true },
    bulkCount, field('Action', bulkAction), bulkValueField, bulkList,
    h('button', { type: 'submit', class: 'primary' }, 'Apply to selected'),
    h('button', { type: 'button', onclick: () => { state.selected.clear(); drawRows(); } }, 'Clear selection'));
  const fillBulkList = () => {
    const a = bulkAction.value;
    const opts = a === 'tag' || a === 'untag' ? ctx.tags.map((t) => t.name)
      : a === 'categorize' ? ctx.categories : a === 'assign_trip' ? ctx.trips.map((t) => t.name) : [];
    clear(bulkList, opts.map((o) => h('option', { value: o })));
    bulkValueField.hidden = a.startsWith('rule:'); // a rule brings its own actions
  };
  bulkAction.addEventListener('change', fillBulkList);
  fillBulkList();
  bulkForm.addEventListener('submit', (e) => {
    e.preventDefault();
    act(box, async () => {
      const action = bulkAction.value;
      const v = bulkValue.value.trim();
      if (action.startsWith('rule:')) {
        const rule = ctx.quick.find((r) => `rule:${r.id}` === action);
        const run = await api.post(`/rules/${rule.id}/run`, { transaction_ids: [...state.selected] });
        state.selected.clear();
        await load();
        say(box, `Rule “${rule.name}” ran on ${run.matches} row${run.matches === 1 ? '' : 's'}: ${run.transactions} changed.`);
        return;
      }
      const body = { action, ids: [...state.selected] };
      if (action === 'tag' || action === 'untag') {
        const find = () => ctx.tags.find((t) => t.name.toLowerCase() === v.toLowerCase());
        let tag = find();
        if (!tag) { await refreshTags(); tag = find(); } // made elsewhere meanwhile
        if (!tag && action === 'tag') {
          if (!v) throw Object.assign(new Error('Name a tag'), { field: 'value' });
          tag = await api.post('/tags', { name: v });
          await refreshTags();
        }
        if (!tag) throw Object.assign(new Error(`No tag named “${v}”`), { field: 'value' });
        body.tag_id = tag.id;
      } else if (action === 'categorize') body.category = v || null;
      else if (action === 'normalize') body.merchant_normalized = v || null;
      else {
        const trip = ctx.trips.find((t) => t.name.toLowerCase() === v.toLowerCase());
        if (v && !trip) throw Object.assign(new Error(`No trip named “${v}”`), { field: 'value' });
        body.trip_id = trip ? trip.id : null;
      }
      const r = await api.post('/transactions/bulk', body);
      state.selected.clear();
      await load();
      say(box, `Updated ${r.updated} transaction${r.updated === 1 ? '' : 's'}.`);
    }, bulkForm);
  });

  // ---- the list ----
  const selectAll = h('input', { type: 'checkbox', id: 'select-all', 'aria-label': 'Select every row on this page' });
  selectAll.addEventListener('change', () => {
    for (const r of state.rows) if (selectAll.checked) state.selected.add(r.id); else state.selected.delete(r.id);
    drawRows();
  });
  const tbody = h('tbody');
  const table = h('table', { class: 'txns', tabindex: '-1' },
    h('caption', { class: 'sr-only' }, 'Transactions'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, selectAll), ['Date', 'Description', 'Category', 'Type', 'Amount', 'My share', 'Tags', ''].map((t) => h('th', { scope: 'col' }, t)))),
    tbody);
  const summary = h('p', { class: 'summary', 'aria-live': 'polite' });
  const prev = h('button', { type: 'button', onclick: () => { state.offset = Math.max(0, state.offset - state.limit); load(); } }, '← Previous');
  // Paging buttons stay disabled while a page loads, so a double click
  // moves one page.
  const next = h('button', { type: 'button', onclick: () => { state.offset += state.limit; load(); } }, 'Next →');

  function drawRows() {
    clear(tbody);
    for (const r of state.rows) {
      const cb = h('input', { type: 'checkbox', checked: state.selected.has(r.id), 'aria-label': `Select ${r.description} on ${r.date}` });
      cb.addEventListener('change', () => { if (cb.checked) state.selected.add(r.id); else state.selected.delete(r.id); updateBulk(); });
      const editBtn = h('button', { type: 'button', class: 'small', 'aria-expanded': 'false', 'aria-label': `Edit ${r.description} on ${r.date}` }, 'Edit');
      const out = ['debit', 'fee', 'interest'].includes(r.transaction_type);
      const tr = h('tr', { dataset: { id: r.id } },
        h('td', { class: 'sel' }, cb),
        h('td', { 'data-label': 'Date' }, r.date),
        h('td', { 'data-label': 'Description', class: 'desc' }, h('span', {}, r.description),
          r.merchant_normalized || r.merchant ? h('small', { class: 'merchant' }, r.merchant_normalized || r.merchant) : null,
          h('small', { class: 'bank' }, r.bank_name)),
        h('td', { 'data-label': 'Category' }, label(r.category)),
        h('td', { 'data-label': 'Type' }, r.transaction_type, r.payment_method ? h('small', {}, label(r.payment_method)) : null),
        h('td', { 'data-label': 'Amount', class: `num ${out ? 'out' : 'in'}` }, `${out ? '−' : '+'}${formatMoney(r.amount, r.currency).replace('−', '')}`),
        h('td', { 'data-label': 'My share', class: 'num' }, formatMoney(r.my_amount), h('small', {}, formatPercent(r.my_share_pct)), r.splits.length ? h('small', { class: 'split-flag' }, `split ${r.splits.length} ways`) : null),
        h('td', { 'data-label': 'Tags', class: 'tags' }, r.tags.map((t) => h('span', { class: 'tag' }, t.name))),
        h('td', { class: 'row-actions' }, editBtn));
      editBtn.addEventListener('click', () => {
        const open = tr.nextElementSibling && tr.nextElementSibling.classList.contains('editor');
        tbody.querySelectorAll('tr.editor').forEach((x) => x.remove());
        tbody.querySelectorAll('button[aria-expanded="true"]').forEach((b) => b.setAttribute('aria-expanded', 'false'));
        if (!open) {
          editBtn.setAttribute('aria-expanded', 'true');
          // After a change: the list again, then the news, then focus.
          const reload = async (news) => { await load(); if (news) say(box, news); focusRow(r.id); };
          let ed = null;
          const close = () => { ed?.remove(); editBtn.setAttribute('aria-expanded', 'false'); editBtn.focus(); };
          // The editor shows the row as GET one has it now, and keeps its
          // tag for Save and Delete; after a refused write (the row
          // changed elsewhere) it is drawn again with the newer version.
          const draw = (row, etag, stale) => {
            const next = editor(row, etag, ctx, box, { reload, close, redraw: draw }, stale);
            if (ed) ed.replaceWith(next); else tr.after(next);
            ed = next;
            (ed.querySelector('.msg.stale') || ed.querySelector('input, select'))?.focus();
          };
          act(box, async () => {
            const one = await api.getTagged(`/transactions/${r.id}`);
            if (editBtn.getAttribute('aria-expanded') === 'true') draw(one.data, one.etag);
          }, editBtn);
        }
      });
      tbody.append(tr);
    }
    if (!state.rows.length) tbody.append(h('tr', {}, h('td', { colspan: 9, class: 'empty' }, 'No transactions match.')));
    updateBulk();
  }
  function updateBulk() {
    const n = state.selected.size;
    bulkForm.hidden = n === 0;
    bulkCount.textContent = `${n} selected`;
    selectAll.checked = state.rows.length > 0 && state.rows.every((r) => state.selected.has(r.id));
  }

  // After the editor's change the list is drawn again: focus goes back to
  // the row's Edit button, or to the message when the row left the list.
  function focusRow(id) {
    const b = tbody.querySelector(`tr[data-id="${id}"] .row-actions button`);
    if (b) b.focus(); else (box.querySelector('.msg') || table).focus();
  }

  async function load() {
    const seq = ++state.seq;
    const p = params();
    const offset = state.offset;
    state.limit = Number(f.limit.value);
    prev.disabled = true;
    next.disabled = true;
    table.setAttribute('aria-busy', 'true');
    clearErrors(box);
    // An explicit empty exclude_categories shows transfers too.
    const qs = api.query(p);
    const url = `/transactions${qs}${f.transfers.checked ? `${qs ? '&' : '?'}exclude_categories=` : ''}`;
    let res;
    try {
      res = await api.request('GET', url);
    } catch (e) {
      if (seq !== state.seq) return;
      table.removeAttribute('aria-busy');
      // The old rows do not belong to the filters on screen.
      state.rows = [];
      summary.textContent = '';
      clear(tbody, h('tr', {}, h('td', { colspan: 9, class: 'empty' }, 'The rows could not be loaded.')));
      prev.disabled = offset === 0;
      showError(box, e);
      return;
    }
    if (seq !== state.seq) return; // a later load owns the screen
    // A page past the end (a bulk action moved rows out of the filter):
    // the last page instead.
    if (!res.items.length && res.total > 0 && offset > 0) {
      state.offset = Math.floor((res.total - 1) / state.limit) * state.limit;
      await load();
      return;
    }
    table.removeAttribute('aria-busy');
    state.rows = res.items;
    state.total = res.total;
    const from = res.total ? offset + 1 : 0;
    summary.textContent = `${from}–${offset + res.items.length} of ${res.total}`;
    prev.disabled = offset === 0;
    next.disabled = offset + res.items.length >= res.total;
    drawRows();
  }

  main.append(title('Transactions'), box, catList, filters,
    h('details', { class: 'new-txn' }, h('summary', {}, 'New transaction'), newForm),
    bulkForm, h('div', { class: 'table-wrap' }, table),
    h('nav', { class: 'pager', 'aria-label': 'Pages of transactions' }, prev, summary, next));
  await load();
}

// The API names a person in a refusal by id ("user 4 is not one of the
// participants…"): the name instead where the editor knows it, and that
// person's menu marked.
function namePerson(err, rows, people) {
  const m = /\b(?:user|participant) (\d+)\b/.exec(err.message || '');
  if (!m) return err;
  const id = Number(m[1]);
  const who = people.find(([pid]) => pid === id);
  if (who) err.message = err.message.replace(m[0], who[1]);
  const i = rows.findIndex((row) => row.pid === id);
  if (i >= 0 && err.field === 'participant_id') err.field = `participant_${i}`;
  return err;
}

// What a refused save had changed, in words, and a way to put it back
// into the newer version's form: {text, apply(e)}.
function unsavedInput(e, keys) {
  const typed = keys.filter((k) => e[k]).map((k) => [k, e[k].value,
    e[k].tagName === 'SELECT' ? e[k].selectedOptions[0]?.textContent : e[k].value]);
  return {
    text: typed.map(([k, , shown]) => `${label(k)} “${shown}”`).join(', '),
    apply: (f) => { for (const [k, v] of typed) if (f[k]) f[k].value = v; },
  };
}

// The inline editor of one row, as a table row under it.  The owner of a
// manual row may also correct its date, amount and description, or
// delete it.  etag is the tag of the version r is: Save and Delete send
// it as If-Match, so a change made elsewhere meanwhile is not
// overwritten.  nav: reload(news) draws the list again, then says news;
// close(); redraw(row, etag, stale) draws the editor again for a newer
// version, stale ({text, unsaved}) saying why.
function editor(r, etag, ctx, box, nav, stale) {
  const { reload, close } = nav;
  const local = h('div', { class: 'messages', 'aria-live': 'polite' });
  const path = `/transactions/${r.id}`;
  const ov = r.overrides || {};
  const mine = r.owner_id === ctx.me.id;
  const manual = mine && r.statement_id === null;
  const amountText = r.amount === null || r.amount === undefined ? '' : centsToDecimal(toCents(r.amount));
  const e = {
    date: manual ? h('input', { type: 'date', name: 'date', required: true, value: r.date }) : null,
    amount: manual ? h('input', { type: 'text', name: 'amount', inputmode: 'decimal', required: true, autocomplete: 'off', value: amountText }) : null,
    description: manual ? h('input', { type: 'text', name: 'description', required: true, value: r.description }) : null,
    category: h('input', { type: 'text', name: 'category', list: 'category-list', value: r.category || '' }),
    merchant_normalized: h('input', { type: 'text', name: 'merchant_normalized', value: r.merchant_normalized || '' }),
    my_share_percent: h('input', { type: 'text', name: 'my_share_percent', inputmode: 'decimal', value: ov.my_share_percent ?? '' , placeholder: String(r.my_share_pct) }),
    trip_id: select([['', 'none']].concat(ctx.trips.map((t) => [t.id, t.name])), r.trip_id ?? '', { name: 'trip_id' }),
    transaction_type: select(TYPES.includes(r.transaction_type) ? TYPES : TYPES.concat(r.transaction_type), r.transaction_type, { name: 'transaction_type' }),
    payment_method: select(PAYMENT_METHODS, r.payment_method ?? '', { name: 'payment_method' }),
  };
  const del = manual ? h('button', { type: 'button', class: 'danger', onclick: onAct(local, async () => {
    if (!window.confirm(`Delete “${r.description}” of ${r.date}?`)) return;
    try {
      await api.writeIf('DELETE', path, undefined, etag);
    } catch (err) {
      if (!(err instanceof api.StaleError)) throw err;
      nav.redraw(err.current, err.etag, { text: 'Someone changed this transaction since you opened it: this is the newer version, and it was not deleted. Delete again to delete this version.' });
      return;
    }
    await reload(`Deleted “${r.description}”.`);
  }) }, 'Delete') : null;
  const form = h('form', { class: 'grid', 'aria-label': `Edit ${r.description}` },
    manual ? [field('Date', e.date), field('Amount', e.amount, 'Without a sign: the type says the direction'), field('Description', e.description)] : null,
    field('Category', e.category), field('Merchant', e.merchant_normalized),
    field('My share %', e.my_share_percent, 'Empty: from the splits; 0: none of it is mine'), field('Trip', e.trip_id),
    field('Type', e.transaction_type), field('Payment method', e.payment_method),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Save'),
      h('button', { type: 'button', onclick: close }, 'Close'), del));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    act(local, async () => {
      const body = {};
      if (manual) {
        if (e.date.value !== r.date) {
          if (!e.date.value) throw Object.assign(new Error('Enter a date'), { field: 'date' });
          body.date = e.date.value;
        }
        if (e.amount.value.trim() !== amountText) {
          const cents = magnitude(e.amount.value, 'amount');
          if (cents !== toCents(r.amount)) body.amount = moneyJSON(cents);
        }
        const d = e.description.value.trim();
        if (d !== r.description) {
          if (!d) throw Object.assign(new Error('Enter a description'), { field: 'description' });
          body.description = d;
        }
      }
      const cat = e.category.value.trim();
      if (cat !== (r.category || '')) {
        // null only removes an override: the row's own category stays.
        if (!cat && !ov.category) {
          throw Object.assign(new Error(`“${label(r.category)}” is this row’s own category: it can be changed (type another, e.g. other) but not cleared`), { field: 'category' });
        }
        body.category = cat || null;
      }
      const m = e.merchant_normalized.value.trim();
      if (m !== (r.merchant_normalized || '')) body.merchant_normalized = m || null;
      const share = e.my_share_percent.value.trim();
      if (share !== String(ov.my_share_percent ?? '')) {
        let hundredths = null;
        if (share) { try { hundredths = parsePercentInput(share, { zero: true }); } catch (err) { throw Object.assign(err, { field: 'my_share_percent' }); } }
        body.my_share_percent = hundredths === null ? null : moneyJSON(hundredths);
      }
      const trip = e.trip_id.value ? Number(e.trip_id.value) : null;
      if (trip !== (r.trip_id ?? null)) body.trip_id = trip;
      if (e.transaction_type.value !== r.transaction_type) body.transaction_type = e.transaction_type.value;
      const pm = e.payment_method.value || null;
      if (pm !== (r.payment_method ?? null)) body.payment_method = pm;
      if (!Object.keys(body).length) { say(local, 'Nothing changed.'); return; }
      let row;
      try {
        row = (await api.writeIf('PATCH', path, body, etag)).data;
      } catch (err) {
        if (!(err instanceof api.StaleError)) throw err;
        // Not retried: the newer version is shown, with what this save
        // would have changed, for the person to choose again.
        nav.redraw(err.current, err.etag, {
          text: 'Someone changed this transaction since you opened it: this is the newer version, and your changes were not saved',
          unsaved: unsavedInput(e, Object.keys(body)),
        });
        return;
      }
      await reload(body.category === null && row.category
        ? `Saved “${row.description}”: the category override is removed, so its own category “${label(row.category)}” shows again.`
        : `Saved “${row.description}”.`);
    }, form);
  });

  // Tags: remove buttons and an add field.
  const tagInput = h('input', { type: 'text', name: 'tag', list: 'tag-names' });
  const tagForm = h('form', { class: 'inline', 'aria-label': 'Tags' },
    h('h4', {}, 'Tags'),
    h('ul', { class: 'taglist' }, r.tags.map((t) => h('li', {}, h('span', { class: 'tag' }, t.name),
      h('button', { type: 'button', class: 'small', 'aria-label': `Remove tag ${t.name}`, onclick: onAct(local, async () => {
        await api.del(`/transactions/${r.id}/tags/${t.id}`); await reload();
      }) }, '×')))),
    h('datalist', { id: 'tag-names' }, ctx.tags.map((t) => h('option', { value: t.name }))),
    field('Add tag', tagInput), h('button', { type: 'submit' }, 'Add tag'));
  tagForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    act(local, async () => {
      const name = tagInput.value.trim();
      if (!name) return;
      await api.post(`/transactions/${r.id}/tags`, { name });
      api.invalidate();
      await ctx.refreshTags(); // the name may be a new tag
      await reload();
    }, tagForm);
  });

  // Splits: the named participants' shares; the owner gets the rest.
  const rows = r.splits.filter((x) => x.participant_id !== r.owner_id).map((x) => ({ pid: x.participant_id, share: x.share_percent }));
  const splitRows = h('div', { class: 'split-rows' });
  const splitForm = h('form', { class: 'inline', 'aria-label': 'Split' }, h('h4', {}, 'Split'),
    r.splits.length ? h('ul', { class: 'splits' }, r.splits.map((x) => h('li', {}, `${x.name || `user ${x.participant_id}`}: ${formatPercent(x.share_percent)} = ${formatMoney(x.amount)}${x.settled ? ' (settled)' : ''}`))) : h('p', {}, 'Not split.'),
    splitRows);
  // Splits may name only the owner's participants.  The owner chooses
  // from their own; a participant (who cannot see the owner's list) from
  // the people the row is split with now, themselves included.
  const people = mine ? ctx.participants.map((p) => [p.id, p.name || p.email])
    : r.splits.filter((x) => x.participant_id !== r.owner_id).map((x) => [x.participant_id, x.participant_id === ctx.me.id ? `${x.name || `user ${x.participant_id}`} (you)` : x.name || `user ${x.participant_id}`]);
  const drawSplitRows = () => {
    clear(splitRows);
    rows.forEach((row, i) => {
      const who = select([['', 'choose…']].concat(people), row.pid ?? '', { name: `participant_${i}` });
      const share = h('input', { type: 'text', inputmode: 'decimal', name: `share_${i}`, value: row.share ?? '' });
      who.addEventListener('change', () => { row.pid = who.value ? Number(who.value) : null; });
      share.addEventListener('input', () => { row.share = share.value; });
      splitRows.append(h('div', { class: 'split-row' }, field(`Participant ${i + 1}`, who), field(`Share % ${i + 1}`, share),
        h('button', { type: 'button', class: 'small', 'aria-label': `Remove participant ${i + 1}`, onclick: () => { rows.splice(i, 1); drawSplitRows(); } }, '×')));
    });
  };
  drawSplitRows();
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'off' });
  splitForm.append(
    h('div', { class: 'actions' },
      h('button', { type: 'button', onclick: () => { rows.push({ pid: null, share: '' }); drawSplitRows(); splitRows.querySelector('.split-row:last-child select')?.focus(); } }, 'Add participant'),
      h('button', { type: 'submit', class: 'primary' }, 'Save split'),
      r.splits.length ? h('button', { type: 'button', onclick: onAct(local, async () => {
        await api.del(`/transactions/${r.id}/splits`); await reload('Split removed.');
      }) }, 'Remove split') : null),
    mine ? h('div', { class: 'new-participant' }, field('New participant’s email', email),
      h('button', { type: 'button', onclick: onAct(local, async () => {
        if (!email.value.trim()) return;
        const p = await api.post('/participants', { email: email.value.trim() });
        if (!ctx.participants.some((x) => x.id === p.id)) ctx.participants.push(p);
        if (!people.some(([id]) => id === p.id)) people.push([p.id, p.name || p.email]);
        rows.push({ pid: p.id, share: '' }); email.value = ''; drawSplitRows();
        say(local, `${p.email} can now be chosen.`);
      }) }, 'Add person'))
      : h('p', { class: 'hint' }, 'Only the row’s owner can add people to its split: you can change the shares of the people it is split with.'));
  splitForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    act(local, async () => {
      const body = rows.map((row, i) => {
        if (!row.pid) throw Object.assign(new Error(`Choose participant ${i + 1}`), { field: `participant_${i}` });
        let hs;
        try { hs = parsePercentInput(row.share); } catch (err) { throw Object.assign(err, { field: `share_${i}` }); }
        return { participant_id: row.pid, share_percent: moneyJSON(hs) };
      });
      if (!body.length) throw new Error('Add a participant first (Remove split un-shares).');
      try {
        await api.post(`/transactions/${r.id}/splits`, body);
      } catch (err) {
        throw namePerson(err, rows, people);
      }
      await reload(`Split “${r.description}” saved.`);
    }, splitForm);
  });

  if (stale) {
    const u = stale.unsaved;
    local.append(h('div', { class: 'msg stale', role: 'alert', tabindex: '-1' },
      u ? `${stale.text} (${u.text}). Re-apply them to this version and Save to replace it, or Close to keep it. ` : stale.text,
      u ? h('button', { type: 'button', class: 'small', onclick: () => { u.apply(e); form.querySelector('button[type=submit]').focus(); } }, 'Re-apply my changes') : null));
  }

  return h('tr', { class: 'editor' }, h('td', { colspan: 9 },
    h('div', { class: 'editor-box' }, h('h3', {}, `Edit: ${r.description}`),
      mine ? null : h('p', { class: 'hint' }, 'Shared with you: a change of category, merchant, trip or payment method changes the row for its owner too; the type and the owner’s share are the owner’s to change.'),
      local, form, tagForm, splitForm)));
}
