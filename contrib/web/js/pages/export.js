// Export: the whole ledger as a file, in each of GET /api/export's
// formats.  Each is a plain link the browser downloads from the service as
// it is written, so a long ledger never sits in the page's memory.
import { API_BASE } from '../api.js';
import { h, title } from '../ui.js';

const FORMATS = [
  ['csv', 'Download CSV', 'One line per transaction with its effective category, merchant, trip, tags, splits and your share: for a spreadsheet.'],
  ['json', 'Download JSON', 'Every transaction, statement, tag, participant, trip, budget, payment and rule: to build the ledger again elsewhere.'],
  ['journal', 'Download journal', 'An hledger or Ledger journal: expenses by category at your share, what each participant owes, payments between you.'],
];

export async function render(main) {
  main.append(title('Export'),
    h('p', {}, 'Everything you can see: your own transactions and those shared with you, in your terms (your categories, your share).'),
    h('ul', { class: 'exports' }, FORMATS.map(([format, text, about]) => h('li', {},
      h('a', { class: 'button primary', href: `${API_BASE}/export?format=${format}`, download: '', 'data-format': format }, text),
      h('p', { class: 'hint' }, about)))));
}
