// CSV import: upload → map columns → editable preview → done.  Mapping
// presets: the bank presets of contrib/csv-presets (served at
// /csv-presets/) and the user's own, kept in this browser's localStorage.
import * as api from '../api.js';
import { h, clear, field, select, messages, say, act, title, TYPES } from '../ui.js';
import { parseMoneyInput, moneyJSON, centsToDecimal, toCents } from '../money.js';

export const BUILTIN_PRESETS = ['anz', 'chase', 'commbank', 'generic-debit-credit', 'generic-signed', 'ing-de', 'ing-nl', 'knab',
  'lloyds', 'mint', 'monzo', 'nab', 'paypal', 'paypal-older', 'revolut', 'venmo', 'westpac'];
const PRESET_BASE = document.querySelector('meta[name="ledger-csv-presets"]')?.content || 'csv-presets/';

// The user's presets are kept per signed-in user (GET /api/me's id): a
// browser may be shared, and a preset's name is free text that can name
// accounts.  The one store for every user of a browser
// ('ledger.csvPresets', before this) belongs to nobody we can tell, so it
// is dropped rather than handed to whoever opens the page first.
const LEGACY_STORE = 'ledger.csvPresets';
export const presetStore = (userId) => `ledger.csvPresets.user.${userId}`;
let store = null; // null: who is signed in is not known, so no presets

function useStoreOf(user) {
  store = user && user.id ? presetStore(user.id) : null;
  try { localStorage.removeItem(LEGACY_STORE); } catch { /* storage off */ }
}
export function userPresets() {
  if (!store) return {};
  try { return JSON.parse(localStorage.getItem(store) || '{}'); } catch { return {}; }
}
function saveUserPresets(p) {
  if (!store) throw new Error('Who is signed in is not known yet, so the preset cannot be kept for you: try again once the service answers.');
  localStorage.setItem(store, JSON.stringify(p));
}

async function builtinPresets() {
  const out = {};
  await Promise.all(BUILTIN_PRESETS.map(async (n) => {
    try {
      const r = await fetch(`${PRESET_BASE}${n}.json`);
      if (r.ok) { const j = await r.json(); out[`builtin:${n}`] = { name: j.name, mapping: j.mapping, sample: j.sample }; }
    } catch { /* a preset that does not load is simply not offered */ }
  }));
  return out;
}

// The code pages a file can be read in (WHATWG names, as TextDecoder
// and the service's mapping.encoding take them).
export const ENCODINGS = ['utf-8', 'windows-1252', 'windows-1250', 'windows-1251', 'iso-8859-2', 'iso-8859-15'];

// The WHATWG name of an encoding label ("cp1250", "latin2"), or null for
// a label the browser does not know.
export function encodingName(label) {
  try { return new TextDecoder(String(label)).encoding; } catch { return null; }
}

// The text of a file's bytes, and the encoding read: the one named, else
// UTF-8 when the bytes are valid UTF-8, else Windows-1252, as the service
// guesses.  Windows-1250 cannot be told apart from 1252 (a Hungarian "ő"
// reads as "õ"), so a Central European file needs its code page named.
// The file is decoded here and sent as text: a JSON body's csv is text,
// and the service refuses a code page for it.  A BOM is dropped.
export function decode(bytes, encoding = '') {
  if (encoding) return { text: new TextDecoder(encoding).decode(bytes), encoding };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252' };
  }
}

// The date formats the service reads (etc/openapi.yaml, the preview's
// date_format).
export const DATE_FORMATS = ['DD/MM/YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD', 'DD-MM-YYYY', 'MM-DD-YYYY', 'YYYY/MM/DD', 'YYYY.MM.DD',
  'DD.MM.YYYY', 'YYYYMMDD', 'D/M/YYYY', 'D MMM YYYY', 'DD MMM YYYY', 'MMM D, YYYY'];

export const DELIMITERS = [[',', 'comma ,'], [';', 'semicolon ;'], ['\t', 'tab'], ['|', 'bar |']];

// The delimiter of the first line that has one: the one found most often
// outside quotes ("Payee, name" is one field of a semicolon file); a tie
// is a comma.
export function guessDelimiter(text) {
  const t = text.replace(/^\uFEFF/, '');
  const counts = { ',': 0, ';': 0, '\t': 0, '|': 0 };
  let q = false;
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (c === '"') q = !q; // a doubled quote toggles twice
    else if (!q && (c === '\n' || c === '\r')) { if (Object.values(counts).some((n) => n)) break; }
    else if (!q && c in counts) counts[c]++;
  }
  return Object.entries(counts).sort((a, b) => b[1] - a[1])[0][0];
}

export const MAX_SKIP = 1000;

// The text after its first n lines, as the service skips them (its
// mapping.skip_lines): LF, CRLF or a lone CR ends a line, quotes are not
// looked at; and the line the rest starts on.
export function afterLines(text, n) {
  const t = text.replace(/^\uFEFF/, '');
  let i = 0, done = 0;
  while (done < n && i < t.length) {
    while (i < t.length && t[i] !== '\n' && t[i] !== '\r') i++;
    if (t[i] === '\r' && t[i + 1] === '\n') i++;
    if (i < t.length) i++;
    done++;
  }
  return { rest: t.slice(i), line: done + 1 };
}

// The records of text split as the service splits them (a '"' opens a
// quoted value at the start of a field; "" in one is a quote), up to max
// of them, each {line, fields}: line its first line, counted from `line`
// on (a quoted value over two lines is two).  Records of nothing but empty
// fields are left out, as the service leaves them out.
export function records(text, delim, max = 50, line = 1) {
  const t = text.replace(/^\uFEFF/, '');
  const out = [];
  let i = 0;
  while (i < t.length && out.length < max) {
    const rec = { line, fields: [] };
    for (;;) {
      let cur = '';
      let j = i;
      while (t[j] === ' ') j++;
      if (t[j] === '"') {
        for (i = j + 1; i < t.length; i++) {
          if (t[i] === '"' && t[i + 1] === '"') { cur += '"'; i++; } else if (t[i] === '"') { i++; break; } else {
            if (t[i] === '\n' || (t[i] === '\r' && t[i + 1] !== '\n')) line++;
            cur += t[i];
          }
        }
      }
      while (i < t.length && t[i] !== delim && t[i] !== '\n' && t[i] !== '\r') cur += t[i++];
      rec.fields.push(cur);
      if (t[i] === delim) { i++; continue; }
      if (t[i] === '\r' && t[i + 1] === '\n') i++;
      if (i < t.length) { i++; line++; }
      break;
    }
    if (rec.fields.some((f) => f.trim())) out.push(rec);
  }
  return out;
}

// How many lines above the header to skip, as a first guess the user can
// correct.  Conservative, for the exports that write account details or a
// summary above the table (DKB, ING-DiBa): among the first 50 records, the
// table's width is the largest field count two of them share (a header
// and a row); the first record that wide is the header, and the lines
// before it are skipped only when every record before it has at most half
// as many fields and most records from it on are that wide.  So a header
// with one field less than its rows (Chase's rows end with a comma) is
// never skipped, nor are a few rows with unquoted delimiters in them; a
// summary nearly as wide as the table (Bank of America's 3 fields above
// 4) is left to the user.
export function guessSkip(text, delim) {
  const recs = records(text, delim, 50);
  const counts = recs.map((r) => r.fields.length);
  const width = Math.max(0, ...counts.filter((c, i) => counts.indexOf(c) !== i));
  const h = counts.indexOf(width);
  if (h <= 0 || width < 2) return 0;
  const from = counts.slice(h);
  if (!counts.slice(0, h).every((c) => c * 2 <= width)) return 0;
  if (from.filter((c) => c === width).length * 2 <= from.length) return 0;
  return Math.min(recs[h].line - 1, MAX_SKIP);
}

// The lines above the header a preset names columns of, as the service
// finds that header: the first of the first 30 records holding every name
// (case and spaces around ignored); null when none holds them all.
export function headerSkip(text, delim, names) {
  const want = names.map((n) => n.trim().toLowerCase());
  const rec = records(text, delim, 30).find((r) => {
    const have = r.fields.map((f) => f.trim().toLowerCase());
    return want.every((n) => have.includes(n));
  });
  return rec ? Math.min(rec.line - 1, MAX_SKIP) : null;
}

// The header (or first) record after the first `skip` lines split into
// fields: enough to name the columns before the service parses the file;
// the delimiter, when not given, guessed from that line on.
export function firstRow(text, delimiter, skip = 0) {
  const { rest, line } = afterLines(text, skip);
  const delim = delimiter || guessDelimiter(rest);
  const [rec] = records(rest, delim, 1, line);
  return { fields: rec ? rec.fields : [''], delimiter: delim, line: rec ? rec.line : line };
}

export async function render(main) {
  const box = messages();
  const steps = ['Upload', 'Map columns', 'Preview', 'Done'];
  const stepList = h('ol', { class: 'steps', 'aria-label': 'Import steps' }, steps.map((s) => h('li', {}, s)));
  const stage = h('section', { 'aria-live': 'polite' });
  main.append(title('CSV import'), stepList, box, stage);
  const [builtin, user] = await Promise.all([builtinPresets(), api.me().catch(() => null)]);
  useStoreOf(user);
  const presets = { ...builtin };
  let csvText = '';
  let fileName = '';
  let mapping = {};
  // A file's bytes (null for pasted text), the encoding chosen for them
  // ('' to guess) and the one they were read in.
  let bytes = null;
  let encoding = '';
  let readAs = '';

  function setStep(i) {
    [...stepList.children].forEach((li, j) => { if (i === j) li.setAttribute('aria-current', 'step'); else li.removeAttribute('aria-current'); });
  }

  // ---- 1. upload ----
  function upload() {
    setStep(0);
    const file = h('input', { type: 'file', name: 'file', accept: '.csv,text/csv,text/plain' });
    const paste = h('textarea', { name: 'csv', rows: 6, spellcheck: 'false' });
    const form = h('form', {}, h('h3', {}, '1. Upload a bank export'),
      field('CSV file', file), field('…or paste the CSV text', paste),
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Next: map columns')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      act(box, async () => {
        if (file.files.length) {
          bytes = new Uint8Array(await file.files[0].arrayBuffer());
          encoding = '';
          ({ text: csvText, encoding: readAs } = decode(bytes));
          fileName = file.files[0].name;
        } else { bytes = null; readAs = ''; csvText = paste.value; fileName = 'pasted text'; }
        if (!csvText.trim()) throw Object.assign(new Error('Choose a file or paste CSV text'), { field: 'file' });
        box.replaceChildren();
        mapStep();
      }, form);
    });
    clear(stage, form);
    (stage.querySelector('input'))?.focus();
  }

  // ---- 2. map columns ----
  function mapStep() {
    setStep(1);
    const all = { ...presets, ...Object.fromEntries(Object.entries(userPresets()).map(([k, v]) => [`user:${k}`, v])) };
    const presetSel = select([['', 'none']].concat(Object.entries(all).map(([k, v]) => [k, `${v.name}${k.startsWith('user:') ? ' (mine)' : ''}`])), '', { name: 'preset' });
    const hdr = h('input', { type: 'checkbox', name: 'has_header', checked: true });
    const negate = h('input', { type: 'checkbox', name: 'negate' });
    const fmt = select([['', 'guess'], ...DATE_FORMATS], '', { name: 'date_format' });
    const mode = select([['signed', 'one signed amount column'], ['split', 'separate debit and credit columns']], 'signed', { name: 'amount_mode' });
    // A file's code page: another one re-reads the bytes (pasted text is
    // text already, so it has none to choose).
    const guessed = bytes ? decode(bytes).encoding : '';
    const enc = select([['', `guess (${guessed})`]].concat(ENCODINGS), encoding, { name: 'encoding' });
    const cols = {};
    const colFields = h('div', { class: 'grid' });
    // The keys of a preset the form has no control for: the description's
    // columns after its first, the direction's words, the decimal mark.
    // They are sent as the preset says until the user changes that part
    // (another description or direction column), and shown meanwhile.
    let kept = {};
    const keptNote = h('p', { class: 'hint kept' });
    // Lines above the header (account details, a summary): the service is
    // told to skip them, and the columns are the line's after them.
    const skip = h('input', { type: 'number', name: 'skip_lines', min: '0', max: String(MAX_SKIP), step: '1',
      inputmode: 'numeric', value: String(guessSkip(csvText, guessDelimiter(csvText))) });
    const skipped = () => {
      const n = Number(skip.value);
      return Number.isInteger(n) && n >= 0 && n <= MAX_SKIP ? n : null;
    };
    let first = firstRow(csvText, undefined, skipped() ?? 0);
    // The columns shown are the ones the service is told to split by.
    const delim = select(DELIMITERS, first.delimiter, { name: 'delimiter' });
    let delimChosen = false; // by the user: then kept when the lines skipped change
    const firstLine = h('code', {}, first.fields.join(' | '));
    const lineNo = h('span', {}, String(first.line));
    const resplit = (d) => {
      first = firstRow(csvText, d, skipped() ?? 0);
      firstLine.textContent = first.fields.join(' | ');
      lineNo.textContent = String(first.line);
      delim.value = first.delimiter;
    };
    const colOptions = () => [['', '—']].concat(first.fields.map((f, i) => [String(i), hdr.checked ? `${f || `column ${i + 1}`}` : `column ${i + 1} (${f})`]));
    // Every column select, required ones first; the optional ones may be
    // left at "—".
    const OPTIONAL = ['direction', 'merchant', 'category', 'notes'];
    const LABELS = { direction: ['Direction column', 'Money out or in, for amounts without a sign (Af/Bij, D/C)'],
      notes: ['Notes column', 'Kept as each row\'s notes'] };
    const chosen = () => Object.fromEntries(Object.entries(cols).map(([k, v]) => [k, v.value]));
    function drawCols(values = {}) {
      const before = chosen();
      clear(colFields);
      const names = (mode.value === 'signed' ? ['date', 'description', 'amount', 'direction'] : ['date', 'description', 'debit', 'credit'])
        .concat(['merchant', 'category', 'notes']);
      for (const n of names) {
        cols[n] = select(colOptions(), values[n] ?? guess(n), { name: n });
        const [label, hint] = LABELS[n] || [`${n[0].toUpperCase()}${n.slice(1)} column`];
        colFields.append(field(label, cols[n], hint));
        if (n === 'description' || n === 'direction') cols[n].addEventListener('change', () => forget(n));
      }
      for (const k of Object.keys(cols)) if (!names.includes(k)) delete cols[k];
      const now = chosen();
      for (const n of ['description', 'direction']) if (before[n] !== now[n]) forget(n);
    }
    function guess(n) {
      const re = { date: /date/i, description: /desc|narr|detail|memo|payee|name/i, amount: /amount|value/i, debit: /debit|withdraw|out/i,
        credit: /credit|deposit|in\b/i, merchant: /merchant/i, category: /^\s*categor/i }[n];
      const i = re ? first.fields.findIndex((f) => re.test(f)) : -1;
      return i >= 0 ? String(i) : '';
    }
    // Another description column is no longer the preset's list; another
    // direction column may not use the preset's words.
    function forget(n) {
      if (n === 'description') delete kept.description_more;
      if (n === 'direction') { delete kept.debit_values; delete kept.credit_values; }
      showKept();
    }
    // A preset's column, by name or index, as an index of this file: a
    // number is an index; a name is the header's column of that name, and
    // digits with no such column an index (as the service reads them).
    const toIndex = (v) => {
      const n = first.fields.length;
      if (typeof v === 'number') return v >= 0 && v < n ? String(v) : '';
      let i = first.fields.indexOf(v);
      if (i < 0) i = first.fields.findIndex((f) => f.trim().toLowerCase() === String(v).trim().toLowerCase());
      if (i < 0 && /^\d+$/.test(String(v).trim()) && Number(v) < n) i = Number(v);
      return i >= 0 ? String(i) : '';
    };
    const colName = (v) => { const i = toIndex(v); return i === '' ? String(v) : first.fields[Number(i)] || `column ${Number(i) + 1}`; };
    function showKept() {
      const said = [];
      if (kept.description_more) said.push(`Description also joins: ${kept.description_more.map(colName).join(', ')}`);
      if (kept.debit_values) said.push(`Money out when the direction says: ${kept.debit_values.join(', ')}`);
      if (kept.credit_values) said.push(`Money in when the direction says: ${kept.credit_values.join(', ')}`);
      if (kept.decimal) said.push(`Decimal mark: “${kept.decimal}”`);
      keptNote.textContent = said.length ? `From the preset: ${said.join('; ')}.` : '';
      keptNote.hidden = !said.length;
    }
    // Re-reads the file's bytes in the encoding chosen; the columns picked
    // stay.
    function redecode() {
      if (!bytes) return;
      encoding = enc.value;
      ({ text: csvText, encoding: readAs } = decode(bytes, encoding));
      resplit(delimChosen ? delim.value : undefined);
      drawCols(chosen());
      showKept();
    }
    presetSel.addEventListener('change', () => {
      const p = all[presetSel.value];
      if (!p) return;
      const m = p.mapping;
      const notes = [];
      if (m.encoding !== undefined) {
        const e = encodingName(m.encoding);
        if (ENCODINGS.includes(e)) { if (bytes) { enc.value = e; redecode(); } } else notes.push(`its encoding “${m.encoding}” is not one this page reads`);
      }
      hdr.checked = m.has_header !== false;
      negate.checked = !!m.negate;
      // A format the list lacks is offered rather than dropped.
      if (m.date_format && ![...fmt.options].some((o) => o.value === m.date_format)) fmt.append(h('option', { value: m.date_format }, m.date_format));
      fmt.value = m.date_format || '';
      mode.value = m.debit !== undefined ? 'split' : 'signed';
      if (m.delimiter && DELIMITERS.some(([d]) => d === m.delimiter)) { delim.value = m.delimiter; delimChosen = true; }
      const desc = Array.isArray(m.description) ? m.description : m.description === undefined ? [] : [m.description];
      if (Number.isInteger(m.skip_lines) && m.skip_lines >= 0 && m.skip_lines <= MAX_SKIP) skip.value = String(m.skip_lines);
      else if (hdr.checked) {
        // Columns named by their header: the header is the first line
        // holding them all (Knab writes a title line above it).
        const named = [m.date, m.amount, m.debit, m.credit, m.direction, m.merchant, m.category, m.notes ?? m.memo, ...desc]
          .filter((v) => typeof v === 'string' && !/^\s*\d+\s*$/.test(v));
        const at = named.length ? headerSkip(csvText, delimChosen ? delim.value : guessDelimiter(csvText), named) : null;
        if (at !== null) skip.value = String(at);
      }
      resplit(delimChosen ? delim.value : undefined);
      const values = { ...m, description: desc[0], notes: m.notes ?? m.memo };
      drawCols(Object.fromEntries(['date', 'description', 'amount', 'direction', 'debit', 'credit', 'merchant', 'category', 'notes']
        .map((k) => [k, values[k] === undefined ? '' : toIndex(values[k])])));
      kept = {};
      if (desc.length > 1) kept.description_more = desc.slice(1);
      if (m.direction !== undefined) for (const k of ['debit_values', 'credit_values']) if (Array.isArray(m[k])) kept[k] = m[k];
      if (m.decimal !== undefined) kept.decimal = m.decimal;
      showKept();
      say(box, `Preset “${p.name}” applied${notes.length ? `, but ${notes.join('; ')}` : ''}.`, notes.length ? 'warn' : 'ok');
    });
    mode.addEventListener('change', () => drawCols());
    enc.addEventListener('change', redecode);
    delim.addEventListener('change', () => { delimChosen = true; resplit(delim.value); drawCols(); });
    // Another count of lines skipped is another header line: its columns
    // are offered afresh (and its delimiter, unless the user chose one).
    skip.addEventListener('input', () => {
      if (skipped() === null) return;
      resplit(delimChosen ? delim.value : undefined);
      drawCols();
    });
    hdr.addEventListener('change', () => drawCols(chosen()));
    drawCols();
    showKept();
    const presetName = h('input', { type: 'text', name: 'preset_name' });
    // The mapping sent is the columns picked, by index, and the lines
    // skipped above the header.  A saved preset names a column by its
    // header instead, so it fits a reordered export, but only a name that
    // is there once and is not digits (the service reads digits as an
    // index when no column has that name); it keeps no lines to skip, as
    // the next export's account details may take more or fewer lines (the
    // guess is made for each file), and it keeps the encoding chosen.  The
    // preset's keys kept (a description list, the direction's words, the
    // decimal mark) go along in both.
    const collect = (forPreset = false) => {
      const m = { has_header: hdr.checked, delimiter: first.delimiter };
      if (!forPreset) {
        if (skipped() === null) throw Object.assign(new Error(`Lines before the header: a whole number from 0 to ${MAX_SKIP}`), { field: 'skip_lines' });
        m.skip_lines = skipped();
      }
      const ref = (i) => {
        const n = first.fields[i];
        const unique = n && n.trim() && !/^\s*\d+\s*$/.test(n) && first.fields.filter((x) => x === n).length === 1;
        return forPreset && hdr.checked && unique ? n : i;
      };
      for (const [k, sel] of Object.entries(cols)) {
        if (sel.value === '') {
          if (OPTIONAL.includes(k)) continue;
          throw Object.assign(new Error(`Choose the ${k} column`), { field: k });
        }
        m[k] = ref(Number(sel.value));
      }
      // A column of the list this file lacks is sent by its name: the
      // service then says which.
      if (kept.description_more) m.description = [m.description, ...kept.description_more.map((v) => { const i = toIndex(v); return i === '' ? v : ref(Number(i)); })];
      if (m.direction !== undefined) for (const k of ['debit_values', 'credit_values']) if (kept[k]) m[k] = kept[k];
      if (kept.decimal) m.decimal = kept.decimal;
      if (fmt.value) m.date_format = fmt.value;
      if (negate.checked) m.negate = true;
      if (forPreset && enc.value) m.encoding = enc.value;
      return m;
    };
    const form = h('form', {}, h('h3', {}, `2. Map the columns of ${fileName}`),
      h('p', {}, 'Line ', lineNo, ': ', firstLine),
      h('div', { class: 'grid' }, field('Preset', presetSel),
        bytes ? field('Encoding', enc, 'When letters look wrong: Central European banks often write windows-1250') : null,
        field('Lines before the header', skip, 'Account details or a summary above the column names: they are not read'),
        field('Delimiter', delim), field('First line is a header', hdr), field('Amounts', mode),
        field('Date format', fmt), field('Flip the sign', negate, 'For exports where spending is positive')),
      colFields, keptNote,
      h('fieldset', {}, h('legend', {}, 'Keep this mapping in this browser'),
        h('div', { class: 'actions' }, field('Preset name', presetName),
          h('button', { type: 'button', onclick: () => act(box, async () => {
            const n = presetName.value.trim();
            if (!n) throw Object.assign(new Error('Name the preset'), { field: 'preset_name' });
            const mine = userPresets();
            mine[n] = { name: n, mapping: collect(true) };
            saveUserPresets(mine);
            say(box, `Preset “${n}” saved in this browser, for you only.`);
          }, form) }, 'Save preset'))),
      h('div', { class: 'actions' }, h('button', { type: 'button', onclick: upload }, 'Back'),
        h('button', { type: 'submit', class: 'primary' }, 'Next: preview')));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      act(box, async () => {
        mapping = collect();
        const res = await api.post('/import/csv/preview', { csv: csvText, mapping });
        box.replaceChildren();
        previewStep(res);
      }, form);
    });
    clear(stage, form);
    presetSel.focus();
  }

  // ---- 3. editable preview ----
  function previewStep(res) {
    setStep(2);
    // A row the preview could not read has no type; the menu shows debit,
    // and the commit must send what it shows.
    const rows = res.rows.map((r) => ({ ...r, transaction_type: r.transaction_type || 'debit',
      include: !(r.errors && r.errors.length) && !r.duplicate_of }));
    const tbody = h('tbody');
    rows.forEach((r, i) => {
      const inc = h('input', { type: 'checkbox', checked: r.include, 'aria-label': `Import line ${r.line}` });
      const date = h('input', { type: 'date', value: r.date || '', 'aria-label': `Date, line ${r.line}`, name: `date_${i}` });
      const desc = h('input', { type: 'text', value: r.description || '', 'aria-label': `Description, line ${r.line}`, name: `description_${i}` });
      const amt = h('input', { type: 'text', inputmode: 'decimal', value: r.amount === null || r.amount === undefined ? '' : centsToDecimal(toCents(r.amount)), 'aria-label': `Amount, line ${r.line}`, name: `amount_${i}` });
      const type = select(TYPES, r.transaction_type || 'debit', { 'aria-label': `Type, line ${r.line}`, name: `type_${i}` });
      const merchant = h('input', { type: 'text', value: r.merchant || '', 'aria-label': `Merchant, line ${r.line}`, name: `merchant_${i}` });
      const category = h('input', { type: 'text', value: r.category || '', 'aria-label': `Category, line ${r.line}`, name: `category_${i}` });
      inc.addEventListener('change', () => { r.include = inc.checked; });
      date.addEventListener('change', () => { r.date = date.value; });
      desc.addEventListener('input', () => { r.description = desc.value; });
      amt.addEventListener('input', () => { r.amountText = amt.value; });
      type.addEventListener('change', () => { r.transaction_type = type.value; });
      merchant.addEventListener('input', () => { r.merchant = merchant.value; });
      category.addEventListener('input', () => { r.category = category.value; });
      // The notes go with the row and are stored as its notes.
      const notes = r.notes ? h('div', { class: 'hint' }, `Notes: ${r.notes}`) : null;
      const errs = r.errors && r.errors.length ? h('div', { class: 'errors' }, r.errors.map((x) => (typeof x === 'string' ? x : x.message || JSON.stringify(x))).join('; ')) : null;
      const dup = r.duplicate_of ? h('div', { class: 'errors' }, `Looks like transaction ${r.duplicate_of}`) : null;
      tbody.append(h('tr', { class: `${errs ? 'has-error' : ''} ${dup ? 'duplicate' : ''}` },
        h('td', {}, inc), h('td', {}, String(r.line)), h('td', {}, date), h('td', {}, desc, notes, errs, dup), h('td', {}, amt), h('td', {}, type),
        h('td', {}, merchant), h('td', {}, category)));
    });
    const allowDup = h('input', { type: 'checkbox', name: 'allow_duplicates' });
    // What the service read but doubts (a signed column with no money out
    // at all): said before the rows, as news, not as an error.
    const warnings = (res.warnings || []).length
      ? h('div', { class: 'msg warn', role: 'status' }, h('strong', {}, 'The service warns: '),
        h('ul', {}, res.warnings.map((w) => h('li', {}, typeof w === 'string' ? w : w.message || JSON.stringify(w)))))
      : null;
    const form = h('form', { class: 'preview' }, h('h3', {}, `3. Check and edit ${rows.length} rows`),
      h('p', {}, `Detected: delimiter “${res.detected?.delimiter ?? '?'}”, dates ${res.detected?.date_format ?? '?'}${res.detected?.has_header ? `, the header on line ${res.detected?.header_line ?? '?'}` : ''}${readAs ? `, the file read as ${readAs}` : ''}. Rows with errors or duplicates start unticked.`),
      warnings,
      h('div', { class: 'table-wrap' }, h('table', {}, h('caption', { class: 'sr-only' }, 'Rows to import'),
        h('thead', {}, h('tr', {}, ['Import', 'Line', 'Date', 'Description', 'Amount', 'Type', 'Merchant', 'Category'].map((t) => h('th', { scope: 'col' }, t)))), tbody)),
      field('Import duplicates too', allowDup),
      h('div', { class: 'actions' }, h('button', { type: 'button', onclick: mapStep }, 'Back'),
        h('button', { type: 'submit', class: 'primary' }, 'Import')));
    // A row's merchant and category as the commit stores them; an empty
    // one is none (the commit refuses empty text).
    const texts = (r) => Object.fromEntries(['merchant', 'category', 'notes'].map((k) => [k, (r[k] || '').trim()]).filter(([, v]) => v));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      act(box, async () => {
        const chosen = [];
        rows.forEach((r, i) => {
          // A line the preview found in the ledger goes along, unticked, as
          // the preview read it, unless duplicates are forced: the service
          // matches a file's same lines to stored rows one to one, so the
          // third of three identical purchases, two imported before, is new
          // only beside the other two (sent alone it was skipped).
          const o = res.rows[i];
          if (!r.include && !allowDup.checked && o.duplicate_of && !(o.errors && o.errors.length)) {
            chosen.push({ line: o.line, date: o.date, description: o.description, amount: moneyJSON(toCents(o.amount)),
              transaction_type: o.transaction_type, ...texts(o) });
            return;
          }
          if (!r.include) return;
          let cents;
          try { cents = r.amountText !== undefined ? parseMoneyInput(r.amountText) : toCents(r.amount); } catch (err) { throw Object.assign(err, { field: `amount_${i}` }); }
          if (cents === null) throw Object.assign(new Error(`Line ${r.line} has no amount`), { field: `amount_${i}` });
          // The preview's amounts are magnitudes with a type; a sign typed
          // here would be lost, so it is refused.
          if (cents < 0) throw Object.assign(new Error(`Line ${r.line}: enter the amount without a sign, and choose the type (debit for money out, credit for money in)`), { field: `amount_${i}` });
          if (!r.date) throw Object.assign(new Error(`Line ${r.line} has no date`), { field: `date_${i}` });
          chosen.push({ line: r.line, date: r.date, description: r.description, amount: moneyJSON(cents), transaction_type: r.transaction_type, ...texts(r) });
        });
        if (!rows.some((r) => r.include)) throw new Error('No row is ticked for import.');
        const out = await api.post('/import/csv/commit', { rows: chosen, allow_duplicates: allowDup.checked });
        box.replaceChildren();
        done(out);
      }, form);
    });
    clear(stage, form);
    form.querySelector('input')?.focus();
  }

  // ---- 4. done ----
  function done(out) {
    setStep(3);
    clear(stage, h('div', { class: 'done' }, h('h3', {}, '4. Done'),
      h('p', { role: 'status', class: 'msg ok' }, `Imported ${out.imported} transaction${out.imported === 1 ? '' : 's'}${out.skipped_duplicates ? `, skipped ${out.skipped_duplicates} duplicate${out.skipped_duplicates === 1 ? '' : 's'}` : ''}. They carry the tag csv-import.`),
      h('div', { class: 'actions' }, h('a', { href: '#/transactions?q=', class: 'button' }, 'See transactions'), ' ',
        h('a', { href: '#/reconcile' }, 'Reconcile them with statements'), ' ',
        h('button', { type: 'button', onclick: upload }, 'Import another file'))));
    stage.querySelector('h3').setAttribute('tabindex', '-1');
    stage.querySelector('h3').focus();
  }

  upload();
}
