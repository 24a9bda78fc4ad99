// Statements as cards with the balance flag; OFX/QFX, QIF and CAMT.053 upload; delete.
import * as api from '../api.js';
import { h, clear, field, messages, say, act, onAct, title, label } from '../ui.js';
import { formatMoney } from '../money.js';

function flag(st) {
  if (st.balance_ok === true) return h('span', { class: 'badge ok' }, '✓ Balances');
  if (st.balance_ok === false) return h('span', { class: 'badge bad' }, `⚠ Off by ${formatMoney(st.balance_difference)}`);
  return h('span', { class: 'badge none' }, 'No balance check');
}

// What a statement's card shows: a change of these elsewhere makes it a
// version the person has not seen.
const SAME_STATEMENT = api.sameFields('bank_name', 'account_name', 'statement_type', 'period_start', 'period_end',
  'transaction_count', 'opening_balance', 'closing_balance', 'amount_due');

export async function render(main) {
  const box = messages();
  const list = h('ul', { class: 'cards', 'aria-label': 'Statements' });
  const file = h('input', { type: 'file', name: 'file', accept: '.ofx,.qfx,.qif,.xml' });
  const upload = h('form', { class: 'inline', 'aria-label': 'Import a statement file' },
    field('OFX, QFX, QIF or CAMT.053 statement file', file), h('button', { type: 'submit', class: 'primary' }, 'Import statement'));
  upload.addEventListener('submit', (e) => {
    e.preventDefault();
    act(box, async () => {
      if (!file.files.length) throw Object.assign(new Error('Choose a file'), { field: 'file' });
      const bytes = await file.files[0].arrayBuffer();
      // The service tells the formats apart by their content.
      const res = await api.request('POST', '/statements/import', bytes, { raw: true, type: 'application/octet-stream' });
      // {statements, imported, skipped_duplicates, warnings}: a file seen
      // before makes no statement and imports nothing; each warning names
      // a value the file held that was dropped or read other than written.
      const n = (res.statements || []).length;
      const skipped = res.skipped_duplicates ? `, ${res.skipped_duplicates} already there` : '';
      const warnings = res.warnings || [];
      say(box, `Imported ${n} statement${n === 1 ? '' : 's'} with ${res.imported || 0} row${res.imported === 1 ? '' : 's'}${skipped}.${warnings.length ? ' Read with these warnings:' : ''}`,
        warnings.length ? 'warn' : 'ok');
      if (warnings.length) box.append(h('ul', { class: 'warnings', 'aria-label': 'Import warnings' }, warnings.map((w) => h('li', {}, w))));
      file.value = '';
      await load();
    }, upload);
  });
  main.append(title('Statements'), box, h('details', {}, h('summary', {}, 'Import a statement file'), upload), list);

  async function load() {
    const res = await api.get('/statements');
    clear(list);
    if (!res.items.length) list.append(h('li', {}, 'No statements yet.'));
    for (const st of res.items) {
      const rows = [
        ['Type', label(st.statement_type)],
        ['Period', `${st.period_start} – ${st.period_end}`],
        st.due_date ? ['Due', st.due_date] : null,
        st.amount_due !== null ? ['Amount due', formatMoney(st.amount_due)] : null,
        ['Transactions', String(st.transaction_count)],
        st.opening_balance !== null ? ['Opening balance', formatMoney(st.opening_balance)] : null,
        st.closing_balance !== null ? ['Closing balance', formatMoney(st.closing_balance)] : null,
      ].filter(Boolean);
      list.append(h('li', { class: 'card statement', dataset: { id: st.id } },
        h('h3', {}, `${st.bank_name}${st.account_name ? ` · ${st.account_name}` : ''}`),
        flag(st),
        h('dl', {}, rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
        h('div', { class: 'actions' },
          h('a', { href: `#/transactions?statement_id=${st.id}` }, 'Transactions'),
          h('button', { type: 'button', class: 'small danger', 'aria-label': `Delete statement ${st.bank_name} ${st.period_start}`, onclick: onAct(box, async () => {
            if (!window.confirm(`Delete the ${st.bank_name} statement of ${st.period_start} and its ${st.transaction_count} rows?`)) return;
            try {
              await api.writeShown('DELETE', `/statements/${st.id}`, undefined, st, SAME_STATEMENT);
            } catch (err) {
              if (!(err instanceof api.StaleError)) throw err;
              await load();
              say(box, `This statement changed since this page showed it (it now has ${err.current.transaction_count} rows): it was not deleted. Delete it again to delete this version.`, 'stale');
              return;
            }
            say(box, 'Statement deleted.');
            await load();
          }) }, 'Delete'))));
    }
  }
  await load();
}
