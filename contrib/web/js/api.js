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

// opts.ifMatch: the If-Match header (the tag of the version the write
// is meant for); opts.tagged: answer {data, etag} instead of the data.
export async function request(method, path, body, opts = {}) {
  const headers = { Accept: 'application/json' };
  if (opts.ifMatch) headers['If-Match'] = opts.ifMatch;
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
  return opts.tagged ? { data, etag: res.headers.get('ETag') } : data;
}

export const get = (p, q) => request('GET', p + query(q));
export const post = (p, b) => request('POST', p, b === undefined ? {} : b);
export const patch = (p, b) => request('PATCH', p, b);
export const put = (p, b) => request('PUT', p, b);
export const del = (p, b) => request('DELETE', p, b);
export { moneyJSON };

// One resource's version and its tag: GET one answers {data, etag}.
export const getTagged = (p) => request('GET', p, undefined, { tagged: true });

// A write refused because the resource changed since the page showed it
// (412 precondition_failed): current and etag are the newer version, for
// the page to show in place of the one it had, so nothing is overwritten
// and a second write, made knowing it, names the newer tag.
export class StaleError extends ApiError {
  constructor(current, etag) {
    super(412, 'precondition_failed', null, 'This was changed elsewhere since it was shown here; nothing was saved.');
    this.current = current;
    this.etag = etag;
  }
}

// PATCH, PUT or DELETE of one resource, for the version the page shows
// (etag): If-Match names it, so a change made meanwhile (another device,
// a household member) is not overwritten.  A 412 reads the newer version
// (GET one at onePath) and throws it as a StaleError; it is not retried.
// Without a tag the write goes as an unconditional one.
export async function writeIf(method, path, body, etag, onePath = path) {
  try {
    return await request(method, path, body, { ifMatch: etag || undefined, tagged: true });
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 412) throw e;
    const now = await getTagged(onePath);
    throw new StaleError(now.data, now.etag);
  }
}

// The tag of the version a page drew from a list (read before): GET one
// gives the tag, which names the version the page shows only while GET
// one still shows the same (same(shown, current) on the fields the page
// draws); otherwise a StaleError with the newer version.
export async function tagOfShown(path, shown, same) {
  const now = await getTagged(path);
  if (!same(shown, now.data)) throw new StaleError(now.data, now.etag);
  return now.etag;
}

// same() for tagOfShown: the named fields are equal.
export const sameFields = (...keys) => (a, b) => keys.every((k) => JSON.stringify(a[k] ?? null) === JSON.stringify(b[k] ?? null));

// A write of the version a page drew from a list: its tag, then the
// write naming it; a StaleError either way when it changed meanwhile.
export async function writeShown(method, path, body, shown, same) {
  return writeIf(method, path, body, await tagOfShown(path, shown, same));
}

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
