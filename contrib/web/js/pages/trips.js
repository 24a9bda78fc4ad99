// Trips: list and create, a trip from a tag, and one trip's analytics
// (by category, day, merchant, tag and participant) and owed amounts.
import * as api from '../api.js';
import { h, clear, field, select, messages, say, act, onAct, title, label, hashParams } from '../ui.js';
import { formatMoney, toCents } from '../money.js';
import { hbars, line } from '../chart.js';

// What a trip's card shows: a change of these elsewhere makes it a
// version the person has not seen.
const SAME_TRIP = api.sameFields('name', 'start_date', 'end_date', 'transaction_count');

export async function render(main) {
  const box = messages();
  const me = await api.me();
  const listBox = h('div');
  const detail = h('section', { 'aria-live': 'polite', class: 'trip-detail' });
  const name = h('input', { type: 'text', name: 'name', required: true });
  const start = h('input', { type: 'date', name: 'start_date' });
  const end = h('input', { type: 'date', name: 'end_date' });
  const form = h('form', { class: 'inline', 'aria-label': 'New trip' }, field('Trip name', name), field('Start', start), field('End', end),
    h('button', { type: 'submit', class: 'primary' }, 'Create trip'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(box, async () => {
      const t = await api.post('/trips', { name: name.value.trim(), start_date: start.value || undefined, end_date: end.value || undefined });
      say(box, `Trip “${t.name}” created. Assign rows to it from Transactions (Edit, or bulk “Assign to trip”).`);
      name.value = '';
      await load();
    }, form);
  });
  const tags = (await api.get('/tags')).items;
  const tagSel = select([['', 'choose…']].concat(tags.map((t) => [t.id, `${t.name} (${t.usage_count})`])), '', { name: 'tag_id' });
  const fromTag = h('form', { class: 'inline', 'aria-label': 'Trip from a tag' }, field('Tag', tagSel),
    h('button', { type: 'submit' }, 'Make a trip of the tagged rows'));
  fromTag.addEventListener('submit', (e) => {
    e.preventDefault();
    act(box, async () => {
      if (!tagSel.value) throw Object.assign(new Error('Choose a tag'), { field: 'tag_id' });
      const t = await api.post('/trips/from-tag', { tag_id: Number(tagSel.value) });
      say(box, `Trip “${t.name}” created from the tag.`);
      await load();
    }, fromTag);
  });
  main.append(title('Trips'), box, h('details', {}, h('summary', {}, 'New trip'), form, fromTag), listBox, detail);

  async function load() {
    const trips = (await api.get('/trips')).items;
    clear(listBox, trips.length ? h('ul', { class: 'cards' }, trips.map((t) => h('li', { class: 'card trip' },
      h('h3', {}, t.name), h('p', {}, `${t.start_date || '…'} – ${t.end_date || '…'} · ${t.transaction_count} row${t.transaction_count === 1 ? '' : 's'}`),
      h('div', { class: 'actions' }, h('button', { type: 'button', class: 'small', 'aria-label': `Show trip ${t.name}`, onclick: () => show(t) }, 'Show'),
        h('a', { href: `#/transactions?trip_id=${t.id}` }, 'Rows'),
        t.owner_id === me.id ? h('button', { type: 'button', class: 'small danger', 'aria-label': `Delete trip ${t.name}`, onclick: onAct(box, () => remove(t)) }, 'Delete') : null)))) : h('p', {}, 'No trips yet.'));
    const want = hashParams().get('id');
    const t = trips.find((x) => String(x.id) === want);
    if (t) await show(t);
  }

  // Deleting a trip (its owner only) leaves its rows without one.  The
  // delete names the version the card shows (If-Match): a trip changed
  // elsewhere since is shown anew and asked about again.
  async function remove(t) {
    if (!window.confirm(`Delete the trip “${t.name}”? Its ${t.transaction_count} row${t.transaction_count === 1 ? '' : 's'} stay, without a trip.`)) return;
    try {
      await api.writeShown('DELETE', `/trips/${t.id}`, undefined, t, SAME_TRIP);
    } catch (err) {
      if (!(err instanceof api.StaleError)) throw err;
      await load();
      say(box, `Someone changed the trip “${t.name}” since this page showed it: it is now “${err.current.name}” (${err.current.start_date || '…'} – ${err.current.end_date || '…'}), and it was not deleted. Delete it again to delete this version.`, 'stale');
      return;
    }
    if (detail.dataset.trip === String(t.id)) clear(detail);
    say(box, `Trip “${t.name}” deleted.`);
    await load();
  }

  async function show(t) {
    await act(box, async () => {
      const [a, owed, people] = await Promise.all([api.get(`/trips/${t.id}/analytics`), api.get(`/trips/${t.id}/owed`), api.get(`/trips/${t.id}/participants`)]);
      const names = new Map((people.items || []).map((p) => [p.id ?? p.participant_id, p.name || p.email]));
      const who = (id) => names.get(id) || `participant ${id}`;
      const table = (cap, rows, cols) => h('table', {}, h('caption', {}, cap),
        h('thead', {}, h('tr', {}, cols.map((c) => h('th', { scope: 'col' }, c[0])))),
        h('tbody', {}, rows.map((r) => h('tr', {}, cols.map((c, i) => h(i ? 'td' : 'th', { class: i ? 'num' : '', scope: i ? undefined : 'row' }, c[1](r)))))));
      detail.dataset.trip = String(t.id);
      clear(detail, h('h3', { tabindex: '-1' }, `${t.name}: ${formatMoney(a.total)} spent`),
        h('div', { class: 'two-col' },
          h('div', {}, h('h4', {}, 'By category'), hbars(`${t.name} spend by category`, a.by_category.map((x) => ({ label: label(x.category), cents: toCents(x.total) })))),
          h('div', {}, h('h4', {}, 'By day'), line(`${t.name} spend by day`, a.by_day.map((x) => ({ label: x.date.slice(5), cents: toCents(x.total) })))),
          h('div', {}, table('By merchant', a.by_merchant, [['Merchant', (r) => r.merchant || '—'], ['Spent', (r) => formatMoney(r.total)]])),
          h('div', {}, table('By tag', a.by_tag, [['Tag', (r) => r.tag || r.name || '—'], ['Spent', (r) => formatMoney(r.total)]])),
          h('div', {}, table('By participant', a.by_participant, [['Participant', (r) => r.name || who(r.participant_id)], ['Share', (r) => formatMoney(r.total)]])),
          h('div', { class: 'owed' }, h('h4', {}, 'Owed'),
            h('p', {}, 'Owed to me: ', owed.owed_to_me.length ? owed.owed_to_me.map((o) => `${who(o.participant_id)} ${formatMoney(o.amount)}`).join(', ') : 'nothing'),
            h('p', {}, 'I owe: ', owed.owed_by_me.length ? owed.owed_by_me.map((o) => `${who(o.participant_id)} ${formatMoney(o.amount)}`).join(', ') : 'nothing'))));
      detail.querySelector('h3').focus();
    });
  }
  await load();
}
