// The one way the pages talk to /api: JSON in and out, the API's error body
// turned into an ApiError whose message a page shows as it is.
import { moneyJSON } from './money.js';

export class ApiError extends Error {
  constructor(status, code, field, message) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

export const API_BASE = (document.querySelector('meta[name="ledger-api"]')?.content || '/api').replace(/\/$/, '');

// Non-integer numbers stay as their literal text ("12.50"), so no money
// passes through a double.  Integers (ids, counts, whole amounts) stay
// numbers.  Without the reviver's source text (older browsers) String()
// of a two-decimal double gives the same digits.
function reviver(key, value, context) {
  if (typeof value === 'number' && !Number.isInteger(value)) {
    return context && typeof context.source === 'string' ? context.source : String(value);
  }
  if (typeof value === 'number' && context && typeof context.source === 'string' && context.source.includes('.')) {
    return context.source; // "12.00": keep the cents visible
  }
  return value;
}

export function parseJSON(text) {
  return JSON.parse(text, reviver);
}

// Query string with repeated keys for arrays; empty values dropped unless
// kept (exclude_categories= means "hide nothing").
export function query(params = {}) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (Array.isArray(v)) v.forEach((x) => u.append(k, x));
    else if (v !== undefined && v !== null && v !== '') u.append(k, v);
  }
  const s = u.toString();
  return s ? `?${s}` : '';
}

export async function request(method, path, body, opts = {}) {
  const headers = { Accept: 'application/json' };
  let payload;
  if (body !== undefined) {
    if (opts.raw) {
      payload = body;
      headers['Content-Type'] = opts.type || 'application/octet-stream';
    } else {
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
  }
  let res;
  try {
    res = await fetch(API_BASE + path, { method, headers, body: payload, credentials: 'same-origin' });
  } catch (e) {
    throw new ApiError(0, 'network', null, `The service could not be reached (${e.message}).`);
  }
  const text = await res.text();
  let data = null;
  if (text && (res.headers.get('Content-Type') || '').includes('json')) {
    try { data = parseJSON(text); } catch { data = null; }
  }
  if (!res.ok) {
    const e = data && data.error;
    if (e) throw new ApiError(e.status || res.status, e.code, e.field || null, e.message || `Error ${res.status}`);
    const msg = res.status === 401 ? 'You are not signed in.' : `The service answered ${res.status} ${res.statusText}.`;
    throw new ApiError(res.status, 'http', null, msg);
  }
  return data;
}

export const get = (p, q) => request('GET', p + query(q));
export const post = (p, b) => request('POST', p, b === undefined ? {} : b);
export const patch = (p, b) => request('PATCH', p, b);
export const put = (p, b) => request('PUT', p, b);
export const del = (p, b) => request('DELETE', p, b);
export { moneyJSON };

// Small caches for lists many pages use; cleared by pages that change them.
const cache = new Map();
export function cached(path) {
  if (!cache.has(path)) cache.set(path, get(path).catch((e) => { cache.delete(path); throw e; }));
  return cache.get(path);
}
export function invalidate(path) {
  if (path) cache.delete(path); else cache.clear();
}
// The caller: {id, email, name, home_currency}.
export const me = () => cached('/me');
