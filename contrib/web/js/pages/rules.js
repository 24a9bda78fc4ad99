// Rules: create with conditions and actions, preview, apply one or all,
// quick actions for manual_only rules from the transactions' selection,
// runs with revert.
import * as api from '../api.js';
import { h, clear, field, select, messages, say, act, onAct, title, label } from '../ui.js';
import { parseMoneyInput, moneyJSON, parsePercentInput, formatMoney, formatPercent } from '../money.js';

const FIELDS = ['description', 'merchant', 'merchant_normalized', 'category', 'amount', 'transaction_type',
  'payment_method', 'bank_name', 'statement_type', 'date', 'tag'];
const TEXT_OPS = ['contains', 'equals', 'not_equals', 'not_contains', 'starts_with', 'ends_with', 'matches', 'in', 'is_empty'];
const NUM_OPS = ['equals', 'not_equals', 'gt', 'gte', 'lt', 'lte', 'between', 'in'];
// What a rule's card shows: a change of any of these elsewhere makes it
// a version the person has not seen.
const SAME_RULE = api.sameFields('name', 'match', 'enabled', 'manual_only', 'conditions', 'actions');
const ACTIONS = [['add_tag', 'add tag'], ['set_category', 'set category'], ['set_merchant', 'set merchant'], ['set_trip', 'set trip'], ['apply_split', 'split with']];

function conditionValue(fieldName, op, text) {
  if (op === 'is_empty') return true;
  const one = (t) => {
    if (fieldName !== 'amount') return t.trim();
    return moneyJSON(parseMoneyInput(t));
  };
  // Values apart by commas, or by semicolons when one has a comma of its
  // own ("1,000.00; 2,000.00", "Smith, J; Jones").
  if (op === 'in' || op === 'between') return text.split(text.includes(';') ? ';' : ',').map(one);
  return one(text);
}

function showValue(fieldName, v) {
  if (Array.isArray(v)) return v.map((x) => showValue(fieldName, x)).join(', ');
  if (fieldName === 'amount') { try { return formatMoney(v); } catch { return String(v); } }
  return fieldName === 'date' ? String(v) : `“${v}”`;
}

// Names for the ids a rule keeps: a tag, trip or person no longer there
// (deleted, or not the caller's) is said to be so, since the rule will be
// passed over for it.
const tagName = (ctx, id) => { const t = ctx.tags.find((x) => x.id === id); return t ? `“${t.name}”` : `a deleted tag (#${id})`; };
const tripName = (ctx, id) => { const t = ctx.trips.find((x) => x.id === id); return t ? `“${t.name}”` : `a deleted trip (#${id})`; };
const personName = (ctx, id) => { const p = ctx.participants.find((x) => x.id === id); return p ? p.name || p.email : `unknown person (#${id})`; };

function describeAction(x, ctx) {
  if (x.type === 'add_tag') return `tag ${tagName(ctx, x.tag_id)}`;
  if (x.type === 'set_category') return `category ${label(x.category)}`;
  if (x.type === 'set_merchant') return `merchant “${x.merchant_normalized}”`;
  if (x.type === 'set_trip') return `trip ${tripName(ctx, x.trip_id)}`;
  if (x.type === 'apply_split') {
    const shares = (x.shares || []).map((y) => `${personName(ctx, y.participant_id)} ${formatPercent(y.share_percent)}`).join(', ');
    return shares ? `split with ${shares}` : 'split';
  }
  return label(x.type);
}

function describe(rule, ctx) {
  const c = rule.conditions.map((x) => `${label(x.field)} ${label(x.operator)}${x.value === true ? '' : ` ${x.operator === 'between' && Array.isArray(x.value) ? x.value.map((y) => showValue(x.field, y)).join(' and ') : showValue(x.field, x.value)}`}`).join(rule.match === 'any' ? ' or ' : ' and ');
  const a = rule.actions.map((x) => describeAction(x, ctx)).join(', ');
  return `${c || 'selected rows'} → ${a}`;
}

// What a preview item changes, field by field, in words: "category
// groceries → dining; trip none → “Tassie”; tags + “work”".
function describeChange(before, after, ctx) {
  const out = [];
  const b = before || {}, a = after || {};
  if (b.category !== a.category) out.push(`category ${b.category ? label(b.category) : 'none'} → ${a.category ? label(a.category) : 'none'}`);
  if (b.merchant_normalized !== a.merchant_normalized) out.push(`merchant ${b.merchant_normalized ? `“${b.merchant_normalized}”` : 'none'} → ${a.merchant_normalized ? `“${a.merchant_normalized}”` : 'none'}`);
  if (b.trip_id !== a.trip_id) out.push(`trip ${b.trip_id ? tripName(ctx, b.trip_id) : 'none'} → ${a.trip_id ? tripName(ctx, a.trip_id) : 'none'}`);
  const names = (tags) => (tags || []).map((t) => t.name);
  const added = names(a.tags).filter((n) => !names(b.tags).includes(n));
  const removed = names(b.tags).filter((n) => !names(a.tags).includes(n));
  if (added.length || removed.length) out.push(`tags ${added.map((n) => `+ “${n}”`).concat(removed.map((n) => `− “${n}”`)).join(' ')}`);
  const split = (sp) => (sp || []).map((y) => `${y.name || personName(ctx, y.participant_id)} ${formatPercent(y.share_percent)}`).join(', ') || 'not split';
  if (split(b.splits) !== split(a.splits)) out.push(`split ${split(b.splits)} → ${split(a.splits)}`);
  return out.length ? out.join('; ') : 'no change';
}

// A previewed row by its date, description and amount (GET
// /transactions/{id}); by number only if it cannot be read.
async function previewRow(it) {
  try {
    const t = await api.get(`/transactions/${it.transaction_id}`);
    return `${t.date} · ${t.description} · ${formatMoney(t.amount, t.currency)}`;
  } catch {
    return `row ${it.transaction_id}`;
  }
}

export async function render(main) {
  const box = messages();
  const [tags, trips, parts, cats] = await Promise.all([api.get('/tags'), api.get('/trips'), api.get('/participants'), api.get('/categories')]);
  const ctx = { tags: tags.items, trips: trips.items, participants: parts.items, categories: cats.items.map((c) => c.category) };
  const rulesBox = h('div');
  const runsBox = h('div');
  const previewBox = h('div', { 'aria-live': 'polite' });

  // ---- new rule ----
  const name = h('input', { type: 'text', name: 'name', required: true });
  const match = select([['all', 'all conditions'], ['any', 'any condition']], 'all', { name: 'match' });
  const manualOnly = h('input', { type: 'checkbox', name: 'manual_only' });
  const conds = [];
  const acts = [];
  const condBox = h('div', { class: 'split-rows' });
  const actBox = h('div', { class: 'split-rows' });
  function drawConds() {
    clear(condBox);
    conds.forEach((c, i) => {
      const f = select(FIELDS.map((x) => [x, label(x)]), c.field, { name: `cond_field_${i}` });
      const ops = c.field === 'amount' || c.field === 'date' ? NUM_OPS : TEXT_OPS;
      const o = select(ops.map((x) => [x, label(x)]), c.op, { name: `cond_op_${i}` });
      const v = h('input', { type: 'text', name: `cond_value_${i}`, value: c.value });
      f.addEventListener('change', () => { c.field = f.value; c.op = (c.field === 'amount' || c.field === 'date' ? NUM_OPS : TEXT_OPS)[0]; drawConds(); condBox.querySelector(`[name=cond_field_${i}]`).focus(); });
      o.addEventListener('change', () => { c.op = o.value; });
      v.addEventListener('input', () => { c.value = v.value; });
      condBox.append(h('div', { class: 'split-row' }, field(`Condition ${i + 1} field`, f), field(`Condition ${i + 1} test`, o),
        field(`Condition ${i + 1} value`, v, 'For in and between: values separated by commas (or by semicolons when a value has a comma)'),
        h('button', { type: 'button', class: 'small', 'aria-label': `Remove condition ${i + 1}`, onclick: () => { conds.splice(i, 1); drawConds(); } }, '×')));
    });
  }
  function drawActs() {
    clear(actBox);
    acts.forEach((a, i) => {
      const t = select(ACTIONS, a.type, { name: `act_type_${i}` });
      let v;
      if (a.type === 'add_tag') v = h('input', { type: 'text', name: `act_value_${i}`, list: 'rule-tags', value: a.value });
      else if (a.type === 'set_category') v = h('input', { type: 'text', name: `act_value_${i}`, list: 'rule-cats', value: a.value });
      else if (a.type === 'set_trip') v = select([['', 'choose…']].concat(ctx.trips.map((x) => [x.id, x.name])), a.value, { name: `act_value_${i}` });
      else if (a.type === 'apply_split') v = select([['', 'choose…']].concat(ctx.participants.map((x) => [x.id, x.name || x.email])), a.value, { name: `act_value_${i}` });
      else v = h('input', { type: 'text', name: `act_value_${i}`, value: a.value });
      const share = a.type === 'apply_split' ? h('input', { type: 'text', inputmode: 'decimal', name: `act_share_${i}`, value: a.share || '50' }) : null;
      t.addEventListener('change', () => { a.type = t.value; a.value = ''; drawActs(); actBox.querySelector(`[name=act_type_${i}]`).focus(); });
      v.addEventListener('input', () => { a.value = v.value; });
      v.addEventListener('change', () => { a.value = v.value; });
      if (share) share.addEventListener('input', () => { a.share = share.value; });
      actBox.append(h('div', { class: 'split-row' }, field(`Action ${i + 1}`, t),
        field(a.type === 'apply_split' ? `Action ${i + 1} participant` : `Action ${i + 1} value`, v),
        share ? field(`Action ${i + 1} their share %`, share) : null,
        h('button', { type: 'button', class: 'small', 'aria-label': `Remove action ${i + 1}`, onclick: () => { acts.splice(i, 1); drawActs(); } }, '×')));
    });
  }
  conds.push({ field: 'description', op: 'contains', value: '' });
  acts.push({ type: 'add_tag', value: '' });
  drawConds();
  drawActs();
  const form = h('form', { 'aria-label': 'New rule' },
    h('datalist', { id: 'rule-tags' }, ctx.tags.map((t) => h('option', { value: t.name }))),
    h('datalist', { id: 'rule-cats' }, ctx.categories.map((c) => h('option', { value: c }))),
    h('div', { class: 'grid' }, field('Rule name', name), field('Match', match), field('Only as a quick action on selected rows', manualOnly)),
    h('fieldset', {}, h('legend', {}, 'Conditions'), condBox,
      h('button', { type: 'button', onclick: () => { conds.push({ field: 'description', op: 'contains', value: '' }); drawConds(); } }, 'Add condition')),
    h('fieldset', {}, h('legend', {}, 'Actions'), actBox,
      h('button', { type: 'button', onclick: () => { acts.push({ type: 'set_category', value: '' }); drawActs(); } }, 'Add action')),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create rule')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(box, async () => {
      const conditions = conds.map((c, i) => {
        try { return { field: c.field, operator: c.op, value: conditionValue(c.field, c.op, c.value) }; } catch (err) { throw Object.assign(err, { field: `cond_value_${i}` }); }
      });
      const actions = [];
      // Tags the rule names are made first (it refers to them by id); if
      // the rule is refused they are removed again, so a refusal writes
      // nothing.
      const made = [];
      try {
        for (const [i, a] of acts.entries()) {
          const v = String(a.value || '').trim();
          if (!v) throw Object.assign(new Error(`Action ${i + 1} needs a value`), { field: `act_value_${i}` });
          if (a.type === 'add_tag') {
            let tag = ctx.tags.find((t) => t.name.toLowerCase() === v.toLowerCase());
            if (!tag) { tag = await api.post('/tags', { name: v }); made.push(tag); ctx.tags.push(tag); }
            actions.push({ type: 'add_tag', tag_id: tag.id });
          } else if (a.type === 'set_category') actions.push({ type: 'set_category', category: v });
          else if (a.type === 'set_merchant') actions.push({ type: 'set_merchant', merchant_normalized: v });
          else if (a.type === 'set_trip') actions.push({ type: 'set_trip', trip_id: Number(v) });
          else {
            let share;
            try { share = parsePercentInput(a.share || '50'); } catch (err) { throw Object.assign(err, { field: `act_share_${i}` }); }
            actions.push({ type: 'apply_split', shares: [{ participant_id: Number(v), share_percent: moneyJSON(share) }] });
          }
        }
        const rule = await api.post('/rules', { name: name.value.trim(), match: match.value, manual_only: manualOnly.checked, conditions: manualOnly.checked ? conditions.filter((c) => c.value !== '') : conditions, actions });
        say(box, `Rule “${rule.name}” created.${rule.manual_only ? ' Run it from Transactions: select rows, then choose it under Action.' : ''}`);
      } catch (err) {
        for (const t of made) {
          await api.del(`/tags/${t.id}`).catch(() => {});
          const i = ctx.tags.indexOf(t);
          if (i >= 0) ctx.tags.splice(i, 1);
        }
        // The API names conditions[0] or actions[1].category: mark the
        // control that holds it.
        const m = /^(conditions|actions)\[(\d+)\]/.exec(err.field || '');
        if (m) err.field = `${m[1] === 'conditions' ? 'cond' : 'act'}_value_${m[2]}`;
        throw err;
      }
      name.value = '';
      await load();
    }, form);
  });

  main.append(title('Rules'), box,
    h('details', { class: 'new-rule', open: true }, h('summary', {}, 'New rule'), form),
    h('h3', {}, 'Your rules'),
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'primary', onclick: onAct(box, async () => {
      const r = await api.post('/rules/apply');
      const skipped = (r.skipped || []).map((x) => `“${x.name}” (${x.reason})`).join('; ');
      say(box, `Applied all rules: ${r.matches} matched, ${r.transactions} changed.`
        + (skipped ? ` Passed over: ${skipped}.` : ''));
      await load();
    }) }, 'Apply all rules')),
    rulesBox, previewBox, h('h3', {}, 'Runs'), runsBox);

  // A change of the rule as its card shows it (If-Match): one changed
  // elsewhere since is drawn anew with the news instead, and the person
  // chooses again.  True when written.
  async function writeRule(r, method, body, done) {
    try {
      await api.writeShown(method, `/rules/${r.id}`, body, r, SAME_RULE);
      return true;
    } catch (err) {
      if (!(err instanceof api.StaleError)) throw err;
      await load();
      say(box, `Someone changed the rule “${r.name}” since this page showed it: the list now shows the newer version (“${err.current.name}”: ${describe(err.current, ctx)}), and it was not ${done}. Choose again to go ahead with this version.`, 'stale');
      return false;
    }
  }

  async function load() {
    // The names the cards show afresh too: a tag deleted meanwhile shows
    // as deleted.
    const [rules, runs, tags, trips, parts] = await Promise.all([api.get('/rules'), api.get('/rules/runs'),
      api.get('/tags'), api.get('/trips'), api.get('/participants')]);
    Object.assign(ctx, { tags: tags.items, trips: trips.items, participants: parts.items });
    clear(rulesBox, rules.items.length ? h('ul', { class: 'cards' }, rules.items.map((r) => h('li', { class: 'card rule', dataset: { id: r.id } },
      h('h4', {}, r.name, r.enabled ? '' : ' (disabled)', r.manual_only ? ' (quick action)' : ''),
      h('p', {}, describe(r, ctx)),
      r.manual_only ? h('p', { class: 'hint' }, 'A quick action: select rows in Transactions and choose it under Action.') : null,
      h('div', { class: 'actions' },
        r.manual_only ? null : h('button', { type: 'button', class: 'small', 'aria-label': `Preview rule ${r.name}`, onclick: onAct(box, async () => {
          const p = await api.post(`/rules/${r.id}/preview`);
          const items = p.items || [];
          const shown = items.slice(0, 50);
          const rows = await Promise.all(shown.map(previewRow));
          clear(previewBox, h('h3', {}, `Preview of “${r.name}”: ${items.length} row${items.length === 1 ? '' : 's'}`),
            h('ul', { class: 'preview-rows' }, shown.map((it, i) => h('li', {}, h('strong', {}, rows[i]), ': ', describeChange(it.before, it.after, ctx)))),
            items.length > shown.length ? h('p', { class: 'hint' }, `The first ${shown.length} are shown.`) : null);
        }) }, 'Preview'),
        r.manual_only ? null : h('button', { type: 'button', class: 'small', 'aria-label': `Apply rule ${r.name}`, onclick: onAct(box, async () => {
          const run = await api.post(`/rules/apply/${r.id}`);
          say(box, `Rule “${r.name}”: ${run.matches} matched, ${run.transactions} changed.`);
          await load();
        }) }, 'Apply'),
        h('button', { type: 'button', class: 'small', 'aria-label': `${r.enabled ? 'Disable' : 'Enable'} rule ${r.name}`, onclick: onAct(box, async () => {
          if (await writeRule(r, 'PATCH', { enabled: !r.enabled }, r.enabled ? 'disabled' : 'enabled')) await load();
        }) }, r.enabled ? 'Disable' : 'Enable'),
        h('button', { type: 'button', class: 'small danger', 'aria-label': `Delete rule ${r.name}`, onclick: onAct(box, async () => {
          if (!window.confirm(`Delete the rule “${r.name}”? Its runs stay and can still be reverted.`)) return;
          if (!await writeRule(r, 'DELETE', undefined, 'deleted')) return;
          say(box, `Rule “${r.name}” deleted.`); await load();
        }) }, 'Delete'))))) : h('p', {}, 'No rules yet.'));
    clear(runsBox, runs.items.length ? h('div', { class: 'table-wrap' }, h('table', { class: 'runs' }, h('caption', { class: 'sr-only' }, 'Rule runs'),
      h('thead', {}, h('tr', {}, ['When', 'Rule', 'Source', 'Matched', 'Changed', ''].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, runs.items.map((run) => h('tr', { dataset: { id: run.id } },
        h('td', {}, run.created_at.replace('T', ' ').replace('Z', ' UTC')),
        h('td', {}, run.rule_unknown ? 'unknown rule' : run.rule_name),
        h('td', {}, run.source), h('td', { class: 'num' }, String(run.matches)), h('td', { class: 'num' }, String(run.transactions)),
        h('td', {}, run.reverted_at ? `reverted ${run.reverted_at.slice(0, 10)}` : h('button', { type: 'button', class: 'small', 'aria-label': `Revert run ${run.id} of ${run.rule_name || 'unknown rule'}`, onclick: onAct(box, async () => {
          await api.del(`/rules/apply/${run.id}`);
          say(box, `Run ${run.id} reverted.`);
          await load();
        }) }, 'Revert'))))))) : h('p', {}, 'No runs yet.'));
  }
  await load();
}
