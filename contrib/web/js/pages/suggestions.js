// Suggestions: the caller's rows without a category, each with the
// category their own history suggests and why; accept one, accept all,
// undo a run of accepted suggestions; the threshold at which a statement
// import applies them by itself.
import * as api from '../api.js';
import { h, clear, field, select, messages, say, act, onAct, title, label } from '../ui.js';
import { formatMoney } from '../money.js';

const PAGE = 100;
// The most rows one apply takes (POST /suggestions/apply), and the most
// "Accept all" gathers, a page of 500 at a time.
const APPLY_MAX = 4096;

const percent = (confidence) => `${Math.round(Number(confidence) * 100)}%`;
const SOURCES = { merchant: 'your rows at this merchant', words: 'the words', builtin: 'built-in' };

// The threshold setting in words: null is the default (merchant memory
// alone), 1.01 never, else every suggestion at least that sure.
function thresholdText(t) {
  if (t === null || t === undefined) return 'only suggestions from your rows at the same merchant, 50% sure or more (the default)';
  if (Number(t) > 1) return 'never';
  return `every suggestion at least ${percent(t)} sure`;
}

export async function render(main) {
  const box = messages();
  const tbody = h('tbody');
  const more = h('div', { class: 'actions' });
  const runsBox = h('div');
  const summary = h('p', { class: 'summary' });
  let cursor = null;

  // ---- the threshold ----
  const mode = select([['default', 'Default: merchant memory only'], ['at_least', 'Every suggestion at least this sure'], ['never', 'Never']],
    'default', { name: 'threshold_mode' });
  const pct = h('input', { type: 'text', name: 'threshold', inputmode: 'numeric', size: 4 });
  const current = h('p', { class: 'hint' });
  const settings = h('form', { class: 'inline', 'aria-label': 'Suggestion threshold' },
    field('Statement imports apply suggestions by themselves', mode),
    field('How sure, %', pct, 'A whole number from 0 to 100, for “at least this sure”'),
    h('button', { type: 'submit' }, 'Save threshold'));
  const showSetting = (s) => {
    const t = s.threshold;
    mode.value = t === null || t === undefined ? 'default' : Number(t) > 1 ? 'never' : 'at_least';
    pct.value = mode.value === 'at_least' ? String(Math.round(Number(t) * 100)) : '';
    clear(current, `Now: ${thresholdText(t)}.`);
  };
  settings.addEventListener('submit', (e) => {
    e.preventDefault();
    act(box, async () => {
      let threshold = null;
      if (mode.value === 'never') threshold = 1.01;
      else if (mode.value === 'at_least') {
        const text = pct.value.trim().replace(/%$/, '');
        if (!/^\d{1,3}$/.test(text) || Number(text) > 100) {
          throw Object.assign(new Error('How sure: a whole number from 0 to 100.'), { field: 'threshold' });
        }
        threshold = Number(text) / 100;
      }
      const s = await api.put('/suggestions/settings', { threshold });
      showSetting(s);
      say(box, `Statement imports now apply ${thresholdText(s.threshold)}.`);
    }, settings);
  });

  // ---- applying ----
  // One run for the rows given; the message offers its undo.  The page is
  // read again first, so that the message speaks of what is shown.
  async function apply(items, what) {
    const run = await api.post('/suggestions/apply', { items: items.map((it) => ({ transaction_id: it.transaction_id })) });
    await load();
    const m = say(box, `${what}: ${run.transactions} row${run.transactions === 1 ? '' : 's'} categorised. `);
    m.append(undoButton(run, 'Undo'));
  }
  function undoButton(run, text) {
    return h('button', { type: 'button', class: 'small', 'aria-label': `Undo run ${run.id} of accepted suggestions`, onclick: onAct(box, async () => {
      await api.del(`/rules/apply/${run.id}`);
      await load();
      say(box, `Run ${run.id} undone: its rows have no category again.`);
    }) }, text);
  }
  const acceptAll = h('button', { type: 'button', class: 'primary', onclick: onAct(box, async () => {
    // Every row with a suggestion, not only the rows on screen.
    const items = [];
    let offset = 0;
    for (;;) {
      const res = await api.get('/suggestions', { limit: 500, offset });
      items.push(...res.items.filter((it) => it.suggestion));
      if (res.next_cursor === null || res.next_cursor === undefined || items.length >= APPLY_MAX) break;
      offset = Number(res.next_cursor);
    }
    if (!items.length) { say(box, 'No row has a suggestion to accept.'); return; }
    await apply(items.slice(0, APPLY_MAX), items.length > APPLY_MAX ? `Accepted the first ${APPLY_MAX} suggestions` : 'Accepted every suggestion');
  }) }, 'Accept all');

  main.append(title('Suggestions'), box,
    h('p', {}, 'Rows without a category, each with the category your own history suggests and why. Accepting sets the category; Undo puts the rows of that run back as they were.'),
    h('details', {}, h('summary', {}, 'When statement imports apply suggestions'), current, settings),
    h('div', { class: 'actions' }, acceptAll), summary,
    h('div', { class: 'table-wrap' }, h('table', { class: 'suggestions' }, h('caption', { class: 'sr-only' }, 'Rows without a category and their suggestions'),
      h('thead', {}, h('tr', {}, ['Date', 'Description', 'Merchant', 'Amount', 'Suggested category', 'Confidence', 'Why', ''].map((t) => h('th', { scope: 'col', class: t === 'Amount' || t === 'Confidence' ? 'num' : null }, t)))),
      tbody)),
    more, h('h3', {}, 'Accepted suggestions'), runsBox);

  function row(it) {
    const s = it.suggestion;
    return h('tr', { dataset: { id: it.transaction_id } },
      h('td', {}, it.date), h('td', { class: 'desc' }, it.description), h('td', {}, it.merchant || '—'),
      h('td', { class: 'num' }, formatMoney(it.amount)),
      h('td', {}, s ? label(s.category) : 'none'),
      h('td', { class: 'num' }, s ? percent(s.confidence) : '—'),
      h('td', { class: 'reason' }, s ? [s.reason, h('small', { class: 'hint' }, ` (${SOURCES[s.source] || label(s.source)})`)] : 'Nothing known suggests one.'),
      h('td', {}, s ? h('button', { type: 'button', class: 'small', 'aria-label': `Accept ${label(s.category)} for ${it.description}`, onclick: onAct(box, () => apply([it], `Accepted ${label(s.category)} for “${it.description}”`)) }, 'Accept') : null));
  }

  async function page(reset) {
    const res = await api.get('/suggestions', { limit: PAGE, offset: reset ? undefined : cursor });
    if (reset) clear(tbody);
    for (const it of res.items) tbody.append(row(it));
    if (!tbody.children.length) tbody.append(h('tr', {}, h('td', { colspan: 8, class: 'empty' }, 'Every row has a category.')));
    cursor = res.next_cursor ?? null;
    clear(summary, `${res.total} row${res.total === 1 ? '' : 's'} without a category.`);
    clear(more, cursor !== null ? h('button', { type: 'button', onclick: onAct(box, () => page(false)) }, 'Show more') : null);
  }

  async function load() {
    const [runs, s] = await Promise.all([api.get('/rules/runs'), api.get('/suggestions/settings'), page(true)]);
    showSetting(s);
    const mine = runs.items.filter((r) => r.suggestions);
    clear(runsBox, mine.length ? h('div', { class: 'table-wrap' }, h('table', { class: 'runs' }, h('caption', { class: 'sr-only' }, 'Runs of accepted suggestions'),
      h('thead', {}, h('tr', {}, ['When', 'Source', 'Rows', ''].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, mine.map((run) => h('tr', { dataset: { id: run.id } },
        h('td', {}, run.created_at.replace('T', ' ').replace('Z', ' UTC')),
        h('td', {}, run.source), h('td', { class: 'num' }, String(run.transactions)),
        h('td', {}, run.reverted_at ? `undone ${run.reverted_at.slice(0, 10)}` : undoButton(run, 'Undo'))))))) : h('p', {}, 'None yet.'));
  }
  await load();
}
