// Money without floating point.  The API sends amounts as JSON numbers with
// two decimals; api.js keeps each non-integer number as its literal text
// ("12.50"), so everything here works on that text or on integer cents.

const MONEY_RE = /^([+-])?(\d+)(?:\.(\d{0,2}))?$/;

// Cents (a safe integer) from the API's value: an integer number or a
// decimal string; null stays null.
export function toCents(v) {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) v = String(v);
    else return v * 100;
  }
  const m = MONEY_RE.exec(String(v).trim());
  if (!m) throw new Error(`not an amount: ${v}`);
  const cents = Number(m[2]) * 100 + Number((m[3] || '').padEnd(2, '0'));
  return m[1] === '-' ? -cents : cents;
}

// A comma only between groups of three digits ("1,234.50"): "12,50" is a
// decimal comma, which read as grouping would be a hundred times the amount.
const GROUPED_RE = /^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$/;

// What a person types ("1,234.5", "$12", "-3.10") as cents; throws a
// message fit to show when it is not an amount with at most 2 decimals.
export function parseMoneyInput(text) {
  let t = String(text).trim().replace(/[$\s]/g, '');
  if (t.includes(',')) {
    if (!GROUPED_RE.test(t)) throw new Error('Enter an amount like 1,234.50 (a point before the cents)');
    t = t.replace(/,/g, '');
  }
  // ".50" is how many people write fifty cents: a zero before the point.
  t = t.replace(/^([+-]?)\.(?=\d)/, '$10.');
  if (!MONEY_RE.test(t)) throw new Error('Enter an amount like 12.50 (at most two decimals)');
  return toCents(t);
}

// "1234.50" (no grouping) from cents: what the API takes.
export function centsToDecimal(c) {
  const neg = c < 0;
  const a = Math.abs(c);
  const s = `${Math.trunc(a / 100)}.${String(a % 100).padStart(2, '0')}`;
  return neg ? `-${s}` : s;
}

// A JSON number with the exact decimal text, for request bodies.
export function moneyJSON(c) {
  const d = centsToDecimal(c);
  return typeof JSON.rawJSON === 'function' ? JSON.rawJSON(d) : Number(d);
}

function group(intText) {
  return intText.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

// The service's home currency (GET /api/me: home_currency): the currency of
// amount_aud, my_amount and every report.  Unknown (null) until app.js has
// asked: the service's home currency need not be AUD, so until then an
// amount without a currency gets no symbol and every currency its code.
let home = null;
let homeSign = '';
export function setHomeCurrency(code) {
  if (!/^[A-Z]{3}$/.test(code || '')) return;
  home = code;
  homeSign = code;
  try {
    const part = new Intl.NumberFormat('en', { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' })
      .formatToParts(0).find((x) => x.type === 'currency');
    if (part && part.value) homeSign = part.value;
  } catch { /* an unknown code is shown as the code */ }
}
export const homeCurrency = () => home;

// "$1,234.50", "−$4.50" in the home currency (its symbol); any other
// currency always with its code: "USD 20.00", so two currencies never look
// alike.
export function formatCents(c, currency) {
  if (c === null || c === undefined) return '—';
  const d = centsToDecimal(Math.abs(c));
  const [i, f] = d.split('.');
  const cur = currency ? String(currency).toUpperCase() : home;
  const sign = cur === home ? homeSign : cur;
  const code = /[A-Za-z]$/.test(sign || '') ? `${sign} ` : sign || '';
  return `${c < 0 ? '−' : ''}${code}${group(i)}.${f}`;
}

export function formatMoney(v, currency) {
  return formatCents(toCents(v), currency);
}

// Percentages are the same two-decimal numbers: hundredths as integers.
export const toHundredths = toCents;
// A share as hundredths of a percent: more than 0 and at most 100 (a split
// share), or from 0 when zero is allowed (the my_share_percent override:
// "none of this is mine").
export const parsePercentInput = (t, { zero = false } = {}) => {
  let h;
  // The amount's message would speak of money: this field is a percentage.
  try { h = parseMoneyInput(String(t).replace(/%/g, '')); } catch {
    throw new Error('Enter a percentage like 12.5 (at most two decimals)');
  }
  if (h < 0 || (h === 0 && !zero) || h > 10000) {
    throw new Error(zero ? 'A share is at least 0 and at most 100' : 'A share is more than 0 and at most 100');
  }
  return h;
};
export function formatPercent(v) {
  const h = toHundredths(v);
  if (h === null) return '—';
  return `${centsToDecimal(h).replace(/\.00$/, '')}%`;
}
