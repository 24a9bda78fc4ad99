// DOM helpers shared by the pages: element building, labelled fields,
// messages in a live region, and the option lists the API defines.
import { ApiError } from './api.js';

let seq = 0;
export const uid = (p = 'f') => `${p}-${++seq}`;

// h('button', {class: 'x', onclick: fn}, 'text', child...)
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'value' && 'value' in el) el.value = v;
    else if (k === 'checked' || k === 'selected' || k === 'disabled' || k === 'multiple' || k === 'required') el[k] = !!v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  append(el, children);
  return el;
}
function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

const SVGNS = 'http://www.w3.org/2000/svg';
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) el.setAttribute(k, v);
  append(el, children);
  return el;
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// A control with its visible label: field('Date', h('input', {...})).
export function field(label, control, hint) {
  if (!control.id) control.id = uid();
  if (!control.name) control.name = control.id;
  const hintEl = hint ? h('small', { class: 'hint', id: `${control.id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  const cls = control.type === 'checkbox' || control.type === 'radio' ? 'field check' : 'field';
  return h('div', { class: cls }, h('label', { for: control.id }, label), control, hintEl);
}

export function select(options, value, attrs = {}) {
  const sel = h('select', attrs);
  for (const o of options) {
    const [v, t] = Array.isArray(o) ? o : [o, o];
    sel.append(h('option', { value: v, selected: String(v) === String(value ?? '') }, t));
  }
  return sel;
}

// The page's message area: role=status for news, role=alert for errors.
export function messages() {
  return h('div', { class: 'messages', 'aria-live': 'polite' });
}
// kind 'stale': a write refused because its resource changed meanwhile
// (api.StaleError), said as an alert.
export function say(box, text, kind = 'ok') {
  const m = h('p', { class: `msg ${kind}`, role: kind === 'error' || kind === 'stale' ? 'alert' : 'status', tabindex: '-1' }, text);
  box.replaceChildren(m);
  return m;
}
// Some refusals are worded for programs ("send null for none"): these get
// a sentence for the person first, the service's own words after it.
const EXPLAIN = [
  [/uncategori[sz]ed is what the reports call a row with no category/i,
    '“Uncategorised” is how the reports show rows without a category, so it cannot be set as a category. To have none, leave the category empty (or choose another one).'],
];
// An API error shown in the box, and its field marked in the form if there.
export function showError(box, err, form) {
  let text = err instanceof ApiError
    ? `${err.message}${err.code && err.code !== 'http' && err.code !== 'network' ? ` (${err.status} ${err.code})` : ''}`
    : String(err && err.message ? err.message : err);
  const plain = err instanceof ApiError && EXPLAIN.find(([re]) => re.test(err.message));
  if (plain) text = `${plain[1]} The service said: ${text}`;
  say(box, text, 'error');
  if (form && err && err.field) {
    const f = form.querySelector(`[name="${CSS.escape(err.field)}"]`);
    if (f) { f.setAttribute('aria-invalid', 'true'); f.focus(); }
  }
}
// Errors shown earlier are stale once the person acts again.
export function clearErrors(box) {
  if (box) box.querySelectorAll('.msg.error').forEach((m) => m.remove());
}
// Runs an async action with errors shown in box.  target (the form
// submitted or the button clicked) is busy meanwhile: its buttons say so,
// and a second submit or click before the answer (a double click, Enter
// pressed twice) is ignored, so one action never runs twice.
const inFlight = new WeakSet();
export async function act(box, fn, target) {
  const form = target instanceof HTMLFormElement ? target : null;
  if (target) {
    if (inFlight.has(target)) return undefined;
    inFlight.add(target);
  }
  const buttons = form ? [...form.querySelectorAll('button[type=submit]')] : target instanceof HTMLButtonElement ? [target] : [];
  for (const b of buttons) b.setAttribute('aria-disabled', 'true');
  if (target) target.setAttribute('aria-busy', 'true');
  clearErrors(box);
  if (form) form.querySelectorAll('[aria-invalid]').forEach((x) => x.removeAttribute('aria-invalid'));
  try {
    return await fn();
  } catch (e) {
    showError(box, e, form);
    return undefined;
  } finally {
    if (target) {
      inFlight.delete(target);
      target.removeAttribute('aria-busy');
    }
    for (const b of buttons) b.removeAttribute('aria-disabled');
  }
}
// An onclick handler running fn through act with the clicked button busy.
export const onAct = (box, fn) => (ev) => act(box, () => fn(ev), ev.currentTarget);

export const TYPES = ['debit', 'credit', 'fee', 'interest', 'payment', 'refund'];
export const PAYMENT_METHODS = [['', 'unknown'], 'card', 'cash', 'bank_transfer', 'other', 'credits'];
export const label = (slug) => (slug ? String(slug).replace(/_/g, ' ') : '—');
// The API's name for "no category" as a filter or budget value; no
// category's name, so the write fields refuse it (the API does too).
export const UNCATEGORISED = 'uncategorised';
export const categoryLabel = (c) => (c === UNCATEGORISED ? 'no category' : label(c));

export function todayISO() {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
export function monthISO(offset = 0) {
  const d = new Date();
  d.setDate(1);
  d.setMonth(d.getMonth() + offset);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
}

// Hash parameters: #/transactions?statement_id=3
export function hashParams() {
  const i = location.hash.indexOf('?');
  return new URLSearchParams(i >= 0 ? location.hash.slice(i + 1) : '');
}

// The page heading, focusable so the router can move focus to it.
export const title = (text) => h('h2', { tabindex: '-1' }, text);
