// The web client in a real browser: Debian's chromium driven by
// playwright-core (never a downloaded browser) against the real stack
// (nginx serving contrib/web beside /api, ledger-fcgi, SQLite), as
// t/0064-web.t starts it.  Prints one line per check: "ok - NAME" or
// "not ok - NAME", "# ..." for diagnostics; t/0064-web.t turns them into
// TAP.
//
// Environment: LEDGER_WEB_URL (http://127.0.0.1:PORT/), LEDGER_WEB_ARTIFACTS
// (where screenshots go), CHROMIUM (default /usr/bin/chromium).
import { chromium } from 'playwright-core';
import { mkdirSync, readFileSync } from 'node:fs';

const BASE = process.env.LEDGER_WEB_URL.replace(/\/$/, '');
const ART = process.env.LEDGER_WEB_ARTIFACTS || 'web-artifacts';
const EXE = process.env.CHROMIUM || '/usr/bin/chromium';
mkdirSync(ART, { recursive: true });

let failures = 0;
function ok(cond, name, diag) {
  console.log(`${cond ? 'ok' : 'not ok'} - ${name}`);
  if (!cond) {
    failures++;
    if (diag !== undefined) console.log(String(typeof diag === 'string' ? diag : JSON.stringify(diag)).split('\n').map((l) => `# ${l}`).join('\n'));
  }
  return cond;
}
// A named step: an exception fails it, and the run goes on.
async function step(name, fn) {
  try { await fn(); } catch (e) { ok(false, `${name}: ${e.message.split('\n')[0]}`, e.stack); }
}

// ---- the API, as each user (the test's own HTTP client) ----
const auth = (u) => `Basic ${Buffer.from(`${u}:${u}-pw`).toString('base64')}`;
async function api(user, method, path, body) {
  const r = await fetch(`${BASE}/api${path}`, {
    method, headers: { Authorization: auth(user), 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return json;
}
const all = (u, q = '') => api(u, 'GET', `/transactions?exclude_categories=&limit=500${q}`).then((r) => r.items);

// ---- data the pages start from ----
const bob = await api('bob', 'GET', '/me');
await api('alice', 'POST', '/participants', { email: bob.email, name: 'Bob' });
const goodStmt = await api('alice', 'POST', '/statements', {
  bank_name: 'ANZ', account_type: 'Visa Credit Card', period_start: '2025-03-01', period_end: '2025-03-31',
  due_date: '2025-04-20', amount_due: 337.65, opening_balance: 100.0, closing_balance: 437.65,
  transactions: [
    { date: '2025-03-04', description: 'WOOLWORTHS 1234', amount: 87.15, transaction_type: 'debit', category: 'groceries' },
    { date: '2025-03-06', description: 'UBER *TRIP', amount: 23.4, transaction_type: 'debit' },
    { date: '2025-03-09', description: 'QANTAS AIRWAYS', amount: 212.1, transaction_type: 'debit', category: 'travel' },
    { date: '2025-03-12', description: 'NETFLIX.COM', amount: 15.0, transaction_type: 'debit', category: 'subscriptions' },
  ],
});
await api('alice', 'POST', '/statements', {
  bank_name: 'Westpac', account_type: 'Everyday Account', period_start: '2025-04-01', period_end: '2025-04-30',
  opening_balance: 1000.0, closing_balance: 950.0,
  transactions: [
    { date: '2025-04-02', description: 'UBER *EATS', amount: 31.0, transaction_type: 'debit', category: 'dining' },
    { date: '2025-04-12', description: 'NETFLIX.COM', amount: 15.0, transaction_type: 'debit', category: 'subscriptions' },
  ],
});

const browser = await chromium.launch({ executablePath: EXE, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
const context = await browser.newContext({ httpCredentials: { username: 'alice', password: 'alice-pw' }, viewport: { width: 1280, height: 900 } });
const page = await context.newPage();
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.message));
page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
page.on('dialog', (d) => d.accept());
page.setDefaultTimeout(10000);

async function go(name, p = page) {
  const url = `${BASE}/#/${name}`;
  // The same hash again is no navigation: load the page afresh instead.
  if (p.url() === url) await p.reload(); else await p.goto(url);
  await p.waitForSelector('main h2');
  await p.waitForFunction(() => !document.querySelector('main').hasAttribute('aria-busy'));
}
// Another user's browser (own context, own credentials); script errors
// count as the main page's do.
async function userPage(user) {
  const ctx = await browser.newContext({ httpCredentials: { username: user, password: `${user}-pw` }, viewport: { width: 1280, height: 900 } });
  const p = await ctx.newPage();
  p.on('pageerror', (e) => pageErrors.push(`${user}: ${e.message}`));
  p.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) pageErrors.push(`${user}: ${m.text()}`); });
  p.on('dialog', (d) => d.accept());
  p.setDefaultTimeout(10000);
  return p;
}
// Requests matching pred answered only after ms (a slow network), to make
// the order of answers visible.
// The function returned stops that, once every such request is answered.
async function slow(p, pred, ms) {
  const held = [];
  const handler = (route) => {
    if (!pred(route.request())) return route.continue();
    held.push(route.request());
    return new Promise((r) => setTimeout(r, ms)).then(() => route.continue());
  };
  await p.route('**/api/**', handler);
  return async () => {
    await Promise.all(held.map((r) => r.response()));
    await p.unroute('**/api/**', handler);
  };
}
const settle = (p) => p.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
const txnRows = (p) => p.locator('table.txns tbody tr[data-id]');
const summaryOf = (p) => p.locator('.pager .summary').textContent();
const today = (() => { const d = new Date(); return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`; })();
async function shot(name, p = page) {
  await p.screenshot({ path: `${ART}/${name}-desktop.png`, fullPage: true });
}
// Every visible form control has a label (label element, aria-label or
// aria-labelledby); returns the unlabelled ones.
async function unlabelled(p = page) {
  return p.evaluate(() => [...document.querySelectorAll('input, select, textarea')]
    .filter((el) => el.type !== 'hidden' && el.getClientRects().length)
    .filter((el) => !((el.labels && [...el.labels].some((l) => l.textContent.trim())) || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')))
    .map((el) => el.outerHTML.slice(0, 120)));
}
async function labelsChecked(pageName, p = page) {
  const bad = await unlabelled(p);
  ok(bad.length === 0, `${pageName}: every visible input, select and textarea has a label`, bad.join('\n'));
}
const rowsShown = () => page.locator('table.txns tbody tr[data-id]');

// ================================================================ transactions
await step('transactions', async () => {
  await go('transactions');
  ok((await rowsShown().count()) === 6, 'transactions: the six statement rows are listed');
  await page.getByText('New transaction', { exact: true }).click();
  await page.getByLabel('Date', { exact: true }).fill('2025-03-07');
  await page.getByLabel('Amount', { exact: true }).fill('12.50');
  await page.getByLabel('Description', { exact: true }).fill('Cafe Nero lunch');
  await page.getByLabel('Category', { exact: true }).last().fill('Dining');
  await page.getByLabel('Payment method', { exact: true }).selectOption('card');
  await page.getByRole('button', { name: 'Add transaction' }).click();
  await page.getByRole('status').filter({ hasText: 'Added “Cafe Nero lunch”' }).waitFor();
  const cafe = (await all('alice')).find((t) => t.description === 'Cafe Nero lunch');
  ok(cafe && cafe.amount === 12.5 && cafe.category === 'dining' && cafe.payment_method === 'card' && cafe.statement_id === null,
    'transactions: the form creates a manual row (12.50, dining folded, card)', cafe);
  ok(await page.locator('tr', { hasText: 'Cafe Nero lunch' }).locator('td.num').first().textContent() === '−$12.50',
    'transactions: the amount shows as −$12.50 from the API text');

  // The query bar: amount bounds and text, as the API answers q.
  const q = page.getByLabel('Search, or amounts (>N, <N, N-M)');
  for (const [text, want] of [['>80', 2], ['<20', 3], ['20-40', 2], ['uber', 2], ['uber >30', 1]]) {
    await q.fill(text);
    await q.press('Enter');
    await page.waitForFunction((n) => document.querySelectorAll('table.txns tbody tr[data-id]').length === n, want).catch(() => {});
    const shown = await rowsShown().count();
    const api_ = (await api('alice', 'GET', `/transactions?q=${encodeURIComponent(text)}`)).total;
    ok(shown === want && api_ === want, `transactions: query bar “${text}” shows ${want} rows, as the API`, { shown, api: api_ });
  }
  await q.fill('uber >30');
  await q.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('table.txns tbody tr[data-id]').length === 1);
  await shot('transactions-query');
  await q.fill('');
  await q.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('table.txns tbody tr[data-id]').length === 7);

  // Filters and sorting.
  await page.getByText('Filters and sorting').click();
  await page.getByLabel('Sort by').selectOption('amount');
  await page.getByLabel('Order').selectOption('asc');
  await page.waitForFunction(() => document.querySelector('table.txns tbody tr[data-id] td.num')?.textContent === '−$12.50');
  ok(true, 'transactions: sorting by amount ascending puts the smallest first');
  await page.getByLabel('Bank').selectOption('Westpac');
  await page.waitForFunction(() => document.querySelectorAll('table.txns tbody tr[data-id]').length === 2);
  ok(true, 'transactions: the bank filter shows Westpac’s two rows');
  await page.getByLabel('Bank').selectOption('');
  await page.getByLabel('Rows per page').selectOption('25');
  await page.getByLabel('Sort by').selectOption('date');
  await page.getByLabel('Order').selectOption('desc');
  // The list of the last change, not an earlier answer drawn meanwhile.
  await page.waitForFunction(() => !document.querySelector('table.txns').hasAttribute('aria-busy') && document.querySelectorAll('table.txns tbody tr[data-id]').length === 7);
  ok((await page.locator('.pager .summary').textContent()) === '1–7 of 7', 'transactions: the pager counts 1–7 of 7');

  // Inline edit: overrides, type and payment method.
  const uberRow = page.locator('tr[data-id]', { hasText: 'UBER *TRIP' });
  const uberId = Number(await uberRow.getAttribute('data-id'));
  await uberRow.getByRole('button', { name: /^Edit/ }).click();
  const ed = page.locator('tr.editor');
  await ed.getByLabel('Category', { exact: true }).fill('transport');
  await ed.getByLabel('Merchant', { exact: true }).fill('Uber');
  await ed.getByLabel('Payment method').selectOption('card');
  await ed.getByLabel('Type').selectOption('debit');
  await ed.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Saved “UBER *TRIP”' }).waitFor();
  let uber = await api('alice', 'GET', `/transactions/${uberId}`);
  ok(uber.category === 'transport' && uber.merchant_normalized === 'Uber' && uber.payment_method === 'card'
    && uber.overrides.category === 'transport', 'transactions: inline edit saves category and merchant overrides and the payment method', uber);

  // A bad value: the API's error body is shown, naming the field.
  await page.locator('tr[data-id]', { hasText: 'UBER *TRIP' }).getByRole('button', { name: /^Edit/ }).click();
  await page.locator('tr.editor').getByLabel('My share %').fill('150');
  await page.locator('tr.editor').getByRole('button', { name: 'Save', exact: true }).click();
  const alert = page.locator('tr.editor [role=alert]');
  await alert.waitFor();
  ok(/at most 100/.test(await alert.textContent()), 'transactions: a bad share is refused with a visible message');
  ok((await page.locator('tr.editor [name=my_share_percent]').getAttribute('aria-invalid')) === 'true', 'transactions: the field at fault is marked aria-invalid');
  await page.locator('tr.editor').getByRole('button', { name: 'Close' }).click();

  // Tags on one row.
  await page.locator('tr[data-id]', { hasText: 'QANTAS' }).getByRole('button', { name: /^Edit/ }).click();
  await page.locator('tr.editor').getByLabel('Add tag').fill('work');
  await page.locator('tr.editor').getByRole('button', { name: 'Add tag' }).click();
  await page.locator('tr[data-id]', { hasText: 'QANTAS' }).locator('.tag', { hasText: 'work' }).waitFor();
  ok(true, 'transactions: a tag added in the editor shows on the row');

  // A split with a participant: Bob takes 40%.
  await page.locator('tr[data-id]', { hasText: 'WOOLWORTHS' }).getByRole('button', { name: /^Edit/ }).click();
  const sp = page.locator('tr.editor');
  await sp.getByRole('button', { name: 'Add participant' }).click();
  await sp.getByLabel('Participant 1', { exact: true }).selectOption({ label: 'Bob' });
  await sp.getByLabel('Share % 1', { exact: true }).fill('40');
  await sp.getByRole('button', { name: 'Save split' }).click();
  await page.getByRole('status').filter({ hasText: 'Split “WOOLWORTHS 1234” saved' }).waitFor();
  const woolId = Number(await page.locator('tr[data-id]', { hasText: 'WOOLWORTHS' }).getAttribute('data-id'));
  const splits = (await api('alice', 'GET', `/transactions/${woolId}`)).splits;
  const bobSplit = splits.find((x) => x.participant_id === bob.id);
  ok(bobSplit && bobSplit.share_percent === 40 && bobSplit.amount === 34.86 && splits.length === 2,
    'transactions: the split gives Bob 40% (34.86) and the owner the rest', splits);
  ok(/\$52\.29/.test(await page.locator('tr[data-id]', { hasText: 'WOOLWORTHS' }).textContent()), 'transactions: my share shows $52.29');
  ok((await api('bob', 'GET', `/transactions/${woolId}`)).my_amount === 34.86, 'transactions: Bob sees the row with his 34.86');

  // Bulk: tag the selected rows.
  await page.getByRole('checkbox', { name: /Select NETFLIX.COM on 2025-03-12/ }).check();
  await page.getByRole('checkbox', { name: /Select NETFLIX.COM on 2025-04-12/ }).check();
  ok((await page.locator('.bulk .count').textContent()) === '2 selected', 'transactions: the bulk bar counts the selection');
  await page.getByLabel('Action', { exact: true }).selectOption('tag');
  await page.getByLabel('Tag, category, merchant or trip').fill('streaming');
  await shot('transactions-bulk');
  await page.getByRole('button', { name: 'Apply to selected' }).click();
  await page.getByRole('status').filter({ hasText: 'Updated 2 transactions' }).waitFor();
  const tagged = (await all('alice')).filter((t) => t.tags.some((g) => g.name === 'streaming')).map((t) => t.description);
  ok(tagged.length === 2 && tagged.every((d) => d === 'NETFLIX.COM'), 'transactions: bulk tag put “streaming” on both Netflix rows', tagged);
  await labelsChecked('transactions');
  await shot('transactions');
});

// ================================================================ statements
await step('statements', async () => {
  await go('statements');
  const cards = page.locator('li.card.statement');
  ok((await cards.count()) === 2, 'statements: one card per statement');
  const anz = cards.filter({ hasText: 'ANZ' });
  ok(/✓ Balances/.test(await anz.textContent()) && /2025-04-20/.test(await anz.textContent()) && /\$337\.65/.test(await anz.textContent()),
    'statements: the ANZ card shows due date, amount due and a balance that reconciles');
  const wbc = cards.filter({ hasText: 'Westpac' });
  ok(/⚠ Off by \$4\.00/.test(await wbc.textContent()), 'statements: the Westpac card is flagged off by $4.00', await wbc.textContent());
  await labelsChecked('statements');
  await shot('statements');
  await anz.getByRole('link', { name: 'Transactions' }).click();
  await page.waitForFunction(() => document.querySelectorAll('table.txns tbody tr[data-id]').length === 4);
  ok(true, 'statements: a card links to its statement’s four rows');
});

// ================================================================ CSV import
const CSV = 'Date,Description,Amount\n05/03/2025,WOOLWORTHS METRO,-87.15\n06/03/2025,Corner shop,-9.90\n08/03/2025,Salary,"2,500.00"\n09/03/2025,Broken row,abc\n';
await step('csv import', async () => {
  await go('import');
  await page.getByLabel('CSV file').setInputFiles({ name: 'bank.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
  await page.getByRole('button', { name: 'Next: map columns' }).click();
  const preset = page.getByLabel('Preset', { exact: true });
  await preset.waitFor();
  const options = await preset.locator('option').allTextContents();
  ok(options.some((o) => /ANZ account export/.test(o)) && options.length >= 9, 'csv: the bank presets of contrib/csv-presets are offered', options);
  await preset.selectOption({ label: 'Generic: one signed amount column (negative is money out)' });
  ok(await page.getByLabel('Amount column').inputValue() === '2', 'csv: the preset maps the Amount column');
  await page.getByLabel('Date format').selectOption('DD/MM/YYYY');
  await page.getByLabel('Preset name').fill('My credit union');
  await page.getByRole('button', { name: 'Save preset' }).click();
  const aliceId = (await api('alice', 'GET', '/me')).id;
  const stored = await page.evaluate((id) => JSON.parse(localStorage.getItem(`ledger.csvPresets.user.${id}`) || '{}'), aliceId);
  ok(stored['My credit union'] && stored['My credit union'].mapping.amount === 'Amount', 'csv: the user preset is kept in localStorage, under the user', stored);
  await shot('import-map');
  await page.getByRole('button', { name: 'Next: preview' }).click();
  await page.locator('form.preview').waitFor();
  const rows = page.locator('form.preview tbody tr');
  ok((await rows.count()) === 4, 'csv: the preview lists the four rows');
  ok(!(await page.getByLabel('Import line 5').isChecked()) && /amount/i.test(await rows.nth(3).locator('.errors').textContent()),
    'csv: the bad row is shown with its error and left unticked');
  await page.getByLabel('Description, line 3').fill('Corner shop (milk)');
  await page.getByLabel('Amount, line 3').fill('9.95');
  await page.getByLabel('Import line 4').uncheck();
  await shot('import-preview');
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await page.getByText('Imported 2 transactions').waitFor();
  await shot('import-done');
  const mine = await all('alice');
  const corner = mine.find((t) => t.description === 'Corner shop (milk)');
  ok(corner && corner.amount === 9.95 && corner.date === '2025-03-06' && corner.tags.some((g) => g.name === 'csv-import'),
    'csv: the edited row was imported as edited, tagged csv-import', corner);
  ok(!mine.some((t) => t.description === 'Salary'), 'csv: the unticked row was not imported');
  // The user's preset is offered next time.
  await go('import');
  await page.getByLabel('…or paste the CSV text').fill(CSV);
  await page.getByRole('button', { name: 'Next: map columns' }).click();
  ok((await page.getByLabel('Preset', { exact: true }).locator('option').allTextContents()).includes('My credit union (mine)'),
    'csv: the saved preset is offered on the next import');
  await labelsChecked('import');
});

// ================================================================ reconcile
await step('reconcile', async () => {
  await go('reconcile');
  const sets = page.locator('fieldset.card');
  ok((await sets.count()) >= 1, 'reconcile: pending manual rows are listed');
  const wool = sets.filter({ hasText: 'WOOLWORTHS METRO' });
  ok(/WOOLWORTHS 1234/.test(await wool.textContent()), 'reconcile: the CSV row has the statement row as its candidate');
  // Only the Woolworths match: every other row left unmatched.
  await page.getByRole('button', { name: 'Clear all choices' }).click();
  await wool.getByLabel(/WOOLWORTHS 1234/).check();
  await labelsChecked('reconcile');
  await shot('reconcile');
  await page.getByRole('button', { name: 'Apply selected matches' }).click();
  await page.getByRole('status').filter({ hasText: 'Reconciled 1 transaction' }).waitFor();
  const mine = await all('alice');
  ok(!mine.some((t) => t.description === 'WOOLWORTHS METRO'), 'reconcile: the manual row is hidden after applying');
  const stmtRow = mine.find((t) => t.description === 'WOOLWORTHS 1234');
  ok(stmtRow && stmtRow.tags.some((g) => g.name === 'csv-import'), 'reconcile: its tags were copied to the statement row', stmtRow);
  ok(!(await api('alice', 'GET', '/reconcile')).pending.some((p) => p.transaction.description === 'WOOLWORTHS METRO'), 'reconcile: no longer pending');
});

// ================================================================ rules
await step('rules', async () => {
  await go('rules');
  await page.getByLabel('Rule name').fill('Streaming is entertainment');
  await page.getByLabel('Condition 1 value').fill('netflix');
  await page.getByLabel('Action 1', { exact: true }).selectOption('set_category');
  await page.getByLabel('Action 1 value').fill('entertainment');
  await page.getByRole('button', { name: 'Create rule' }).click();
  await page.getByRole('status').filter({ hasText: 'Rule “Streaming is entertainment” created' }).waitFor();
  await page.getByRole('button', { name: 'Apply rule Streaming is entertainment' }).click();
  await page.getByRole('status').filter({ hasText: '2 matched, 2 changed' }).waitFor();
  let nf = (await all('alice')).filter((t) => t.description === 'NETFLIX.COM');
  ok(nf.length === 2 && nf.every((t) => t.category === 'entertainment'), 'rules: applying the rule recategorised both rows', nf.map((t) => t.category));
  const runRow = page.locator('table.runs tbody tr', { hasText: 'Streaming is entertainment' });
  ok(/conditions/.test(await runRow.textContent()), 'rules: the run is listed');
  await labelsChecked('rules');
  await shot('rules');
  await runRow.getByRole('button', { name: /^Revert run/ }).click();
  await page.getByRole('status').filter({ hasText: /reverted/ }).waitFor();
  nf = (await all('alice')).filter((t) => t.description === 'NETFLIX.COM');
  ok(nf.every((t) => t.category === 'subscriptions'), 'rules: reverting the run restored the categories', nf.map((t) => t.category));
  // The runs table is drawn again after the status line: wait for it.
  let shownReverted = true;
  try {
    await page.locator('table.runs tbody tr', { hasText: 'Streaming is entertainment' })
      .filter({ hasText: /reverted/ }).first().waitFor({ timeout: 15000 });
  } catch (e) {
    shownReverted = false;
  }
  ok(shownReverted, 'rules: the run shows as reverted');
});

// ================================================================ trips
await step('trips', async () => {
  await go('trips');
  await page.getByText('New trip', { exact: true }).click();
  await page.getByLabel('Trip name').fill('Melbourne');
  await page.getByRole('button', { name: 'Create trip' }).click();
  await page.getByRole('status').filter({ hasText: 'Trip “Melbourne” created' }).waitFor();
  const trip = (await api('alice', 'GET', '/trips')).items.find((t) => t.name === 'Melbourne');
  const ids = (await all('alice')).filter((t) => /QANTAS|WOOLWORTHS 1234|UBER \*TRIP/.test(t.description)).map((t) => t.id);
  await api('alice', 'POST', `/trips/${trip.id}/transactions`, { transaction_ids: ids });
  await go('trips');
  await page.getByRole('button', { name: 'Show trip Melbourne' }).click();
  const head = page.locator('.trip-detail h3');
  await head.waitFor();
  ok((await head.textContent()) === 'Melbourne: $322.65 spent', 'trips: the trip total is the three rows’ sum', await head.textContent());
  ok((await page.locator('.trip-detail svg.chart rect.bar').count()) === 3, 'trips: the by-category chart has one bar per category');
  ok(/Bob \$34\.86/.test(await page.locator('.trip-detail .owed').textContent()), 'trips: Bob owes his 34.86 share (by the name alice gave him)', await page.locator('.trip-detail .owed').textContent());
  await labelsChecked('trips');
  await shot('trips');
});

// ================================================================ a trip's rows (D2)
await step('trip rows', async () => {
  const trip = (await api('alice', 'GET', '/trips')).items.find((t) => t.name === 'Melbourne');
  const day = await api('alice', 'POST', '/trips', { name: 'Day trip' });
  const cafe = (await all('alice')).find((t) => t.description === 'Cafe Nero lunch');
  await api('alice', 'POST', `/trips/${day.id}/transactions`, { transaction_ids: [cafe.id] });
  await go('trips');
  ok(/· 1 row$/.test(await page.locator('li.card.trip', { hasText: 'Day trip' }).locator('p').textContent()), 'trips: a trip of one row says “1 row”');
  await page.locator('li.card.trip', { hasText: 'Melbourne' }).getByRole('link', { name: 'Rows' }).click();
  await page.waitForFunction(() => !document.querySelector('main').hasAttribute('aria-busy') && document.querySelector('.pager .summary')?.textContent);
  await page.waitForFunction(() => document.querySelectorAll('table.txns tbody tr[data-id]').length === 3).catch(() => {});
  ok((await page.getByLabel('Trip', { exact: true }).inputValue()) === String(trip.id) && (await summaryOf(page)) === '1–3 of 3',
    'trips: “Rows” opens Transactions filtered to the trip (Trip chosen, its 3 rows)', { trip: await page.getByLabel('Trip', { exact: true }).inputValue(), summary: await summaryOf(page) });
  // Bob takes part through his split: he sees every row of the trip, not
  // only the one shared with him.
  const bobPage = await userPage('bob');
  await go('trips', bobPage);
  await bobPage.locator('li.card.trip', { hasText: 'Melbourne' }).getByRole('link', { name: 'Rows' }).click();
  await bobPage.waitForFunction(() => document.querySelectorAll('table.txns tbody tr[data-id]').length === 3).catch(() => {});
  ok((await txnRows(bobPage).count()) === 3, 'trips: a participant’s “Rows” shows all the trip’s rows (trip_all_rows)', await summaryOf(bobPage));
  await bobPage.locator('tr[data-id]', { hasText: 'WOOLWORTHS 1234' }).getByRole('button', { name: /^Edit/ }).click();
  await bobPage.locator('tr.editor').waitFor(); // drawn once GET one answers
  ok((await bobPage.locator('tr.editor').getByText('Shared with you').count()) === 1, 'transactions: the editor of a row shared with me says whose changes they are');
  await bobPage.context().close();
});

// ================================================================ budgets (keyboard only)
await step('budgets', async () => {
  await go('transactions');
  // Navigate and operate with the keyboard: the nav link, then the form.
  await page.getByRole('link', { name: 'Budgets' }).focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement && document.activeElement.tagName === 'H2' && document.activeElement.textContent === 'Budgets');
  ok(true, 'keyboard: following a nav link with Enter moves focus to the page heading');
  await page.keyboard.press('Tab');
  ok(await page.evaluate(() => document.activeElement.name) === 'category', 'keyboard: Tab reaches the category');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  ok(outline !== 'none', 'keyboard: the focused control has a visible outline', outline);
  await page.getByLabel('Category').selectOption('groceries'); // a select's value by keys differs per platform
  await page.keyboard.press('Tab');
  await page.keyboard.type('400');
  await page.keyboard.press('Enter');
  await page.getByRole('status').filter({ hasText: 'Budget for groceries set to $400.00' }).waitFor();
  const b = (await api('alice', 'GET', '/budgets?month=2025-03')).items.find((x) => x.category === 'groceries');
  ok(b && b.amount === 400 && b.spent === 87.15, 'budgets: set with the keyboard; the API has 400.00 with March’s spend', b);
  await page.getByLabel('Month', { exact: true }).fill('2025-03');
  await page.getByLabel('Month', { exact: true }).dispatchEvent('change');
  await page.locator('tr[data-category=groceries]', { hasText: '$87.15' }).waitFor();
  ok(/\$312\.85/.test(await page.locator('tr[data-category=groceries]').textContent()), 'budgets: March shows $87.15 spent and $312.85 remaining');
  await labelsChecked('budgets');
  await shot('budgets');
});

// ================================================================ analytics
await step('analytics', async () => {
  await go('analytics');
  await page.getByLabel('From month').fill('2025-01');
  await page.getByLabel('To month').fill('2025-06');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.locator('table.monthly th', { hasText: '2025-03' }).waitFor();
  const bars = await page.locator('svg.chart rect.bar').count();
  ok(bars >= 4, 'analytics: the monthly chart draws a bar segment per month and category', bars);
  const march = await page.locator('table.monthly tr', { hasText: '2025-03' }).textContent();
  const apiMarch = (await api('alice', 'GET', '/analytics/monthly?from=2025-03&to=2025-03')).items[0].total;
  ok(march.includes(`$${apiMarch.toFixed(2)}`), 'analytics: March’s total is the API’s', { march, apiMarch });
  await page.getByLabel('Merchant', { exact: true }).selectOption({ index: 0 });
  await page.locator('figure svg polyline.line').waitFor();
  ok((await page.locator('figure svg circle.dot').count()) === 6, 'analytics: the merchant history has one point per month');
  {
    // Its total is the API's spend over the range (total counts the months).
    const name = await page.getByLabel('Merchant', { exact: true }).inputValue();
    const hist = await api('alice', 'GET', `/analytics/merchants/${encodeURIComponent(name)}?from=2025-01&to=2025-06`);
    const text = (await page.locator('div[aria-live="polite"]', { has: page.locator('figure svg circle.dot') })
      .textContent()).replace(/,/g, '');
    ok(hist.total === 6 && text.includes(`Total $${hist.spend.toFixed(2)}.`),
      'analytics: the merchant history’s total is the API’s spend', { name, total: hist.total, spend: hist.spend, text: text.slice(-80) });
  }
  await labelsChecked('analytics');
  await shot('analytics');
});

// ================================================================ export
// Each Download link saves the file GET /api/export gives, under its own
// name.
await step('export', async () => {
  await go('export');
  for (const [format, name] of [['csv', 'Download CSV'], ['json', 'Download JSON'], ['journal', 'Download journal']]) {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name }).click()]);
    ok(/^ledger-export-\d{4}-\d\d-\d\d\./.test(dl.suggestedFilename()) && dl.suggestedFilename().endsWith(`.${format}`),
      `export: ${name} saves a .${format} file`, dl.suggestedFilename());
    const got = readFileSync(await dl.path(), 'utf8');
    const r = await fetch(`${BASE}/api/export?format=${format}`, { headers: { Authorization: auth('alice') } });
    const want = await r.text();
    ok(got === want && got.length > 0, `export: the ${format} file is the API's export`, { got: got.length, want: want.length });
  }
  await labelsChecked('export');
  await shot('export');
});

// Checks below each use their own browser (a user other than alice) and
// seed their data through the API; each step stands alone, so a failure
// in one leaves the others meaningful.
async function asUser(user, fn) {
  const p = await userPage(user);
  try { await fn(p); } finally { await p.context().close(); }
}
const until = (p, fn, arg) => p.waitForFunction(fn, arg, { timeout: 5000 }).then(() => true, () => false);

// ================================================================ new rows: no sign lost, one per submit (D5, D3)
await step('negative amount', () => asUser('carol', async (p) => {
  await go('transactions', p);
  await p.getByText('New transaction', { exact: true }).click();
  const form = p.getByRole('form', { name: 'New transaction' });
  // "-5.10" as a debit was saved as a 5.10 debit, the sign dropped.
  await form.getByLabel('Amount', { exact: true }).fill('-5.10');
  await form.getByLabel('Description', { exact: true }).fill('money minus');
  await form.getByRole('button', { name: 'Add transaction' }).click();
  await p.getByRole('alert').or(p.getByRole('status')).first().waitFor();
  ok(/without a sign/.test(await p.locator('.messages').first().textContent())
    && (await form.getByLabel('Amount', { exact: true }).getAttribute('aria-invalid')) === 'true'
    && (await api('carol', 'GET', '/transactions?search=money%20minus')).total === 0,
    'transactions: a negative amount is refused with the field marked, nothing saved', await p.locator('.messages').first().textContent());
}));

await step('double submit', () => asUser('carol', async (p) => {
  await go('transactions', p);
  await p.getByText('New transaction', { exact: true }).click();
  const form = p.getByRole('form', { name: 'New transaction' });
  await form.getByLabel('Amount', { exact: true }).fill('abc');
  await form.getByLabel('Description', { exact: true }).fill('not yet');
  await form.getByRole('button', { name: 'Add transaction' }).click();
  await p.getByRole('alert').waitFor();
  // A double click while the answer is on its way makes one row.
  const unslow = await slow(p, (r) => r.method() === 'POST' && /\/api\/transactions$/.test(r.url()), 200);
  await form.getByLabel('Amount', { exact: true }).fill('42.00');
  await form.getByLabel('Description', { exact: true }).fill('double click test');
  await form.getByRole('button', { name: 'Add transaction' }).dblclick();
  await p.getByRole('status').filter({ hasText: 'Added “double click test”' }).first().waitFor();
  await unslow();
  ok((await api('carol', 'GET', '/transactions?search=double%20click')).total === 1, 'transactions: double-clicking “Add transaction” adds one row, not two');
}));

await step('failed reload', () => asUser('carol', async (p) => {
  await go('transactions', p);
  await p.route('**/api/transactions?**', (r) => r.abort());
  await p.getByText('Filters and sorting').click();
  await p.getByLabel('Type', { exact: true }).first().selectOption('credit');
  await p.getByRole('alert').waitFor();
  ok((await txnRows(p).count()) === 0 && (await summaryOf(p)) === '', 'transactions: a failed reload clears the rows of the previous filters');
}));

// ================================================================ the list: order of answers, paging (D10, D18)
{
  const seed = [];
  for (let i = 0; i < 60; i++) {
    seed.push({ date: `2025-06-${String(1 + (i % 28)).padStart(2, '0')}`, amount: 10 + i, description: `seed row ${i}`,
      category: i < 10 ? 'groceries' : i < 40 ? 'gifts' : 'fuel' });
  }
  for (const b of seed) await api('dave', 'POST', '/transactions', b);
}
const twentyFive = async (p) => {
  await go('transactions', p);
  await p.getByText('Filters and sorting').click();
  await p.getByLabel('Rows per page').selectOption('25');
  await p.waitForFunction(() => document.querySelector('.pager .summary')?.textContent === '1–25 of 60');
};
await step('late answers', () => asUser('dave', async (p) => {
  await twentyFive(p);
  // A slow answer for the old filter must not replace the newer one's.
  const unslow = await slow(p, (r) => r.url().includes('categories'), 600);
  const late = p.waitForResponse((r) => r.url().includes('categories'));
  await p.getByLabel('Category', { exact: true }).first().selectOption('groceries');
  await p.getByLabel('Category', { exact: true }).first().selectOption('');
  await late;
  await settle(p);
  await unslow();
  ok((await summaryOf(p)) === '1–25 of 60' && (await txnRows(p).count()) === 25,
    'transactions: a late answer to an older filter does not overwrite the list', await summaryOf(p));
}));
await step('next twice', () => asUser('dave', async (p) => {
  await twentyFive(p);
  await p.getByRole('button', { name: 'Next →' }).dblclick();
  await until(p, () => /^(26|51)–/.test(document.querySelector('.pager .summary')?.textContent));
  await p.waitForTimeout(200);
  ok((await summaryOf(p)) === '26–50 of 60', 'transactions: a double click on Next moves one page', await summaryOf(p));
}));
await step('emptied page', () => asUser('dave', async (p) => {
  await twentyFive(p);
  // A bulk action that empties the last page shows the new last page.
  await p.getByLabel('Category', { exact: true }).first().selectOption('gifts');
  await p.waitForFunction(() => document.querySelector('.pager .summary')?.textContent === '1–25 of 30');
  await p.getByRole('button', { name: 'Next →' }).click();
  await p.waitForFunction(() => document.querySelector('.pager .summary')?.textContent === '26–30 of 30');
  await p.getByLabel('Select every row on this page').check();
  await p.getByLabel('Action', { exact: true }).selectOption('categorize');
  await p.getByLabel('Tag, category, merchant or trip').fill('fuel');
  await p.getByRole('button', { name: 'Apply to selected' }).click();
  await p.getByRole('status').filter({ hasText: 'Updated 5 transactions' }).waitFor();
  await until(p, () => / of 25$/.test(document.querySelector('.pager .summary')?.textContent) && !document.querySelector('table.txns').hasAttribute('aria-busy'));
  ok((await summaryOf(p)) === '1–25 of 25' && (await txnRows(p).count()) === 25,
    'transactions: after a bulk action empties the page, the last page is shown', await summaryOf(p));
}));

// ================================================================ the row editor (D14, D11, D13, D15, D4)
// The editor opens once GET one of the row answers.
const editRow = async (p, id) => {
  await p.locator(`tr[data-id="${id}"]`).getByRole('button', { name: /^Edit/ }).click();
  await p.locator('tr.editor').waitFor();
  return p.locator('tr.editor');
};
await step('editor: category', () => asUser('dave', async (p) => {
  const row = await api('dave', 'POST', '/transactions', { date: '2025-07-01', amount: 40, description: 'catclear', category: 'groceries' });
  await go('transactions', p);
  // Clearing the row's own category: said plainly, nothing claimed.
  const ed = await editRow(p, row.id);
  await ed.getByLabel('Category', { exact: true }).fill('');
  await ed.getByRole('button', { name: 'Save', exact: true }).click();
  await p.locator('.msg').first().waitFor();
  const said = await p.locator('.msg').allTextContents();
  ok(said.some((m) => /own category/.test(m)) && !said.some((m) => /^Saved/.test(m))
    && (await ed.getByLabel('Category', { exact: true }).getAttribute('aria-invalid')) === 'true'
    && (await api('dave', 'GET', `/transactions/${row.id}`)).category === 'groceries',
    'editor: clearing a row’s own category is refused with a reason, not “Saved”', said);
}));
await step('editor: manual row', () => asUser('dave', async (p) => {
  const row = await api('dave', 'POST', '/transactions', { date: '2025-07-01', amount: 40, description: 'typo row' });
  await go('transactions', p);
  const ed = await editRow(p, row.id);
  await ed.getByLabel('Amount', { exact: true }).fill('43.10');
  await ed.getByLabel('Description', { exact: true }).fill('typo row fixed');
  await ed.getByRole('button', { name: 'Save', exact: true }).click();
  await p.getByRole('status').filter({ hasText: 'Saved “typo row fixed”' }).waitFor();
  const fixed = await api('dave', 'GET', `/transactions/${row.id}`);
  ok(fixed.amount === 43.1 && fixed.description === 'typo row fixed', 'editor: a manual row’s amount and description are corrected', fixed);
}));
await step('editor: focus and share 0', () => asUser('dave', async (p) => {
  const row = await api('dave', 'POST', '/transactions', { date: '2025-07-01', amount: 40, description: 'paid for a friend' });
  await go('transactions', p);
  let ed = await editRow(p, row.id);
  await ed.getByLabel('Merchant', { exact: true }).fill('Friend');
  await ed.getByRole('button', { name: 'Save', exact: true }).click();
  await p.getByRole('status').filter({ hasText: 'Saved “paid for a friend”' }).waitFor();
  await settle(p);
  ok(await p.evaluate((id) => document.activeElement === document.querySelector(`tr[data-id="${id}"] .row-actions button`), row.id),
    'editor: after Save the focus is back on the row’s Edit button', await p.evaluate(() => document.activeElement.outerHTML.slice(0, 80)));
  // 0: none of it is mine (paid on someone's behalf).
  ed = await editRow(p, row.id);
  await ed.getByLabel('My share %').fill('0');
  await ed.getByRole('button', { name: 'Save', exact: true }).click();
  await p.locator('.msg').first().waitFor();
  ok((await api('dave', 'GET', `/transactions/${row.id}`)).my_share_pct === 0, 'editor: my share 0 is accepted', await p.locator('.msg').first().textContent());
}));
await step('editor: new tag', () => asUser('dave', async (p) => {
  const row = await api('dave', 'POST', '/transactions', { date: '2025-07-01', amount: 40, description: 'tag me' });
  await go('transactions', p);
  // A tag added in the editor is known to the filter and bulk actions.
  const ed = await editRow(p, row.id);
  await ed.getByLabel('Add tag').fill('holiday');
  await ed.getByRole('button', { name: 'Add tag' }).click();
  await p.locator(`tr[data-id="${row.id}"] .tag`, { hasText: 'holiday' }).waitFor();
  ok((await p.getByLabel('Tag', { exact: true }).locator('option', { hasText: 'holiday' }).count()) === 1, 'editor: a new tag appears in the Tag filter at once');
  await p.getByRole('checkbox', { name: /^Select tag me/ }).check();
  await p.getByLabel('Action', { exact: true }).selectOption('untag');
  await p.getByLabel('Tag, category, merchant or trip').fill('holiday');
  await p.getByRole('button', { name: 'Apply to selected' }).click();
  await p.locator('.msg').first().waitFor();
  ok((await api('dave', 'GET', `/transactions/${row.id}`)).tags.length === 0, 'editor: bulk “Remove tag” finds the tag made in the editor', await p.locator('.msg').first().textContent());
}));
await step('editor: delete', () => asUser('dave', async (p) => {
  const row = await api('dave', 'POST', '/transactions', { date: '2025-07-02', amount: 5, description: 'entered twice' });
  await go('transactions', p);
  const ed = await editRow(p, row.id);
  await ed.getByRole('button', { name: 'Delete' }).click({ timeout: 3000 });
  await p.getByRole('status').filter({ hasText: 'Deleted “entered twice”' }).waitFor();
  const gone = await fetch(`${BASE}/api/transactions/${row.id}`, { headers: { Authorization: auth('dave') } });
  const off = await until(p, (id) => !document.querySelector(`tr[data-id="${id}"]`), row.id);
  ok(gone.status === 404 && off, 'editor: a manual row can be deleted');
}));

// ================================================================ CSV mapping by index, delimiters in quotes (D6, D7, D5)
const mapThenPreview = async (p, csv) => {
  await go('import', p);
  await p.getByLabel('…or paste the CSV text').fill(csv);
  await p.getByRole('button', { name: 'Next: map columns' }).click();
  await p.getByLabel('Preset', { exact: true }).waitFor();
};
await step('csv: same names', () => asUser('carol', async (p) => {
  // Two columns named Amount: the one picked is the one read.
  await mapThenPreview(p, 'Date,Amount,Description,Amount\n2025-01-02,1.00,coffee,-99.99\n');
  await p.getByLabel('Amount column').selectOption('3');
  await p.getByRole('button', { name: 'Next: preview' }).click();
  await p.locator('form.preview').waitFor();
  const got = [await p.getByLabel('Amount, line 2').inputValue(), await p.getByLabel('Type, line 2').inputValue()];
  ok(got[0] === '99.99' && got[1] === 'debit', 'csv: the column picked is read, though another has the same name', got);
}));
await step('csv: quoted delimiters', () => asUser('carol', async (p) => {
  await mapThenPreview(p, 'Date;"Payee, name";"Amount, AUD"\n02/01/2025;Shop;-1234.56\n');
  const opts = await p.getByLabel('Description column').locator('option').allTextContents();
  ok(opts.includes('Payee, name') && opts.includes('Amount, AUD'), 'csv: a semicolon file with commas in quotes is split into its three columns', opts);
  await p.getByLabel('Date format').selectOption('DD/MM/YYYY');
  await p.getByRole('button', { name: 'Next: preview' }).click();
  await p.locator('form.preview').waitFor();
  ok((await p.getByLabel('Amount, line 2').inputValue()) === '1234.56' && (await p.getByLabel('Description, line 2').inputValue()) === 'Shop',
    'csv: its preview reads the amount and description');
}));
await step('csv: a third identical line', () => asUser('carol', async (p) => {
  // Two coffees imported before; a later export of the day has a third.
  // The client sends the two lines the preview found along with the new
  // one, so the service matches them one to one and imports the third.
  await api('carol', 'POST', '/import/csv/commit', { rows: [1, 2].map(() => ({ date: '2025-11-04', description: 'Third coffee cart', amount: 4.2 })) });
  await mapThenPreview(p, 'Date,Description,Amount\n' + '2025-11-04,Third coffee cart,-4.20\n'.repeat(3));
  await p.getByRole('button', { name: 'Next: preview' }).click();
  await p.locator('form.preview').waitFor();
  const ticked = [2, 3, 4].map((l) => p.getByLabel(`Import line ${l}`).isChecked());
  await p.getByRole('button', { name: 'Import', exact: true }).click();
  await p.locator('.done').waitFor();
  const n = (await api('carol', 'GET', '/transactions?search=third%20coffee%20cart')).total;
  ok(JSON.stringify(await Promise.all(ticked)) === '[false,false,true]' && n === 3
    && /Imported 1 transaction, skipped 2 duplicates/.test(await p.locator('.done').textContent()),
    'csv: the third of three identical lines, two imported before, is imported', n);
}));
await step('csv: negative edit', () => asUser('carol', async (p) => {
  await mapThenPreview(p, 'Date,Description,Amount\n2025-10-01,refund from shop,25.00\n');
  await p.getByRole('button', { name: 'Next: preview' }).click();
  await p.locator('form.preview').waitFor();
  // A sign typed into the preview is refused, not dropped.
  await p.getByLabel('Amount, line 2').fill('-25.00');
  await p.getByRole('button', { name: 'Import', exact: true }).click();
  await p.locator('.msg').first().waitFor();
  ok(/without a sign/.test(await p.locator('.msg').first().textContent())
    && (await p.getByLabel('Amount, line 2').getAttribute('aria-invalid')) === 'true'
    && (await api('carol', 'GET', '/transactions?search=refund%20from%20shop')).total === 0, 'csv: a negative amount in the preview is refused, nothing imported');
}));

// ================================================================ CSV: lines above the header
// DKB writes account details above the header.  The client took its
// columns from the first line ("Kontonummer:" ...) and the service that
// line as the header, flagging every row "12 fields where the file has 3".
const DKB = '"Kontonummer:";"DE12 1203 0000 1234 5678 90 / Girokonto";\n"Von:";"01.01.2025";\n'
  + '"Bis:";"31.01.2025";\n"Kontostand vom 31.01.2025:";"1.234,56 EUR";\n\n'
  + '"Buchungstag";"Wertstellung";"Buchungstext";"Auftraggeber / Beguenstigter";"Verwendungszweck";'
  + '"Kontonummer";"BLZ";"Betrag (EUR)";"Glaeubiger-ID";"Mandatsreferenz";"Kundenreferenz";\n'
  + '"15.01.2025";"15.01.2025";"Lastschrift";"REWE Markt GmbH";"Einkauf";"DE00";"";"-45,67";"";"";"";\n'
  + '"14.01.2025";"14.01.2025";"Gutschrift";"Arbeitgeber GmbH";"Gehalt";"DE00";"";"2.500,00";"";"";"";\n';
await step('csv: lines above the header', () => asUser('carol', async (p) => {
  await mapThenPreview(p, DKB);
  const skip = p.getByLabel('Lines before the header');
  const opts = await p.getByLabel('Date column').locator('option').allTextContents();
  ok(await skip.inputValue() === '5' && opts.includes('Buchungstag') && opts.includes('Betrag (EUR)') && !opts.includes('Kontonummer:'),
    'csv: a DKB export skips its 5 lines of account details and offers the header\'s columns', { skip: await skip.inputValue(), opts });
  // Another count re-reads the columns from the line after it.
  await skip.fill('0');
  const at0 = await p.getByLabel('Date column').locator('option').allTextContents();
  await skip.fill('5');
  const at5 = await p.getByLabel('Date column').locator('option').allTextContents();
  ok(at0.includes('Kontonummer:') && at5.includes('Buchungstag'), 'csv: changing the lines skipped re-reads the columns', { at0, at5 });
  await p.getByLabel('Date column').selectOption({ label: 'Buchungstag' });
  await p.getByLabel('Description column').selectOption({ label: 'Auftraggeber / Beguenstigter' });
  await p.getByLabel('Amount column').selectOption({ label: 'Betrag (EUR)' });
  await p.getByRole('button', { name: 'Next: preview' }).click();
  await p.locator('form.preview').waitFor();
  const got = {
    rows: await p.locator('form.preview tbody tr').count(),
    errors: await p.locator('form.preview .errors').count(),
    ticked: [await p.getByLabel('Import line 7').isChecked(), await p.getByLabel('Import line 8').isChecked()],
    first: [await p.getByLabel('Date, line 7').inputValue(), await p.getByLabel('Description, line 7').inputValue(),
      await p.getByLabel('Amount, line 7').inputValue(), await p.getByLabel('Type, line 7').inputValue()],
    second: [await p.getByLabel('Amount, line 8').inputValue(), await p.getByLabel('Type, line 8').inputValue()],
    detected: await p.locator('form.preview p').first().textContent(),
  };
  ok(got.rows === 2 && got.errors === 0 && got.ticked.every(Boolean)
    && JSON.stringify(got.first) === JSON.stringify(['2025-01-15', 'REWE Markt GmbH', '45.67', 'debit'])
    && JSON.stringify(got.second) === JSON.stringify(['2500.00', 'credit']) && /header on line 6/.test(got.detected),
    'csv: its preview has the two rows, lines 7 and 8, without errors', got);
}));
await step('csv: a trailing comma is no preamble', () => asUser('carol', async (p) => {
  // Chase's rows end with a comma, one field more than the header: the
  // header is still the first line.
  await mapThenPreview(p, 'Details,Posting Date,Description,Amount,Type,Balance,Check or Slip #\n'
    + 'DEBIT,01/20/2025,"STARBUCKS STORE 12345",-4.50,DEBIT_CARD,1234.56,,\n'
    + 'CREDIT,01/21/2025,"ACME CORP PAYROLL",2500.00,ACH_CREDIT,3734.56,,\n');
  const skip = await p.getByLabel('Lines before the header').inputValue();
  const opts = await p.getByLabel('Description column').locator('option').allTextContents();
  await p.getByRole('button', { name: 'Next: preview' }).click();
  await p.locator('form.preview').waitFor();
  const got = { skip, opts, rows: await p.locator('form.preview tbody tr').count(), errors: await p.locator('form.preview .errors').count(),
    date: await p.getByLabel('Date, line 2').inputValue() };
  ok(skip === '0' && opts.includes('Posting Date') && got.rows === 2 && got.errors === 0 && got.date === '2025-01-20',
    'csv: a header with one field less than its rows is not skipped', got);
}));

// ================================================================ CSV: code pages, bank presets, warnings, merchant and category
// The request the page sends to path, as JSON, while fn runs.
const sent = async (p, path, fn) => {
  const req = p.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/api${path}`));
  await fn();
  return (await req).postDataJSON();
};
const bankFile = (name) => readFileSync(new URL(`../../../t/data/bank/csv/${name}`, import.meta.url));
const uploadThenMap = async (p, name, buffer) => {
  await go('import', p);
  await p.getByLabel('CSV file').setInputFiles({ name, mimeType: 'text/csv', buffer });
  await p.getByRole('button', { name: 'Next: map columns' }).click();
  await p.getByLabel('Preset', { exact: true }).waitFor();
};
// A Windows-1250 export of my own: "ő" is the byte 0xF5 and "ű" 0xFB
// there, which Windows-1252 (the guess for a file that is not UTF-8)
// reads as "õ" and "û".
const HU1250 = Buffer.from('Dátum;Fizet\xF5 fél;Összeg\r\n2025.03.03.;Gy\xF5ri t\xFBzifa;-12 500,00\r\n', 'latin1');
await step('csv: a Windows-1250 file', () => asUser('carol', async (p) => {
  await uploadThenMap(p, 'otp.csv', HU1250);
  const enc = p.getByLabel('Encoding');
  const before = { enc: await enc.inputValue(), guess: await enc.locator('option').first().textContent(), line: await p.locator('form code').textContent() };
  await enc.selectOption('windows-1250');
  const after = await p.locator('form code').textContent();
  ok(before.enc === '' && /windows-1252/.test(before.guess) && /Fizetõ fél/.test(before.line) && /Fizető fél/.test(after),
    'csv: a file that is not UTF-8 reads as Windows-1252 until windows-1250 is chosen', { before, after });
  await p.getByLabel('Date column').selectOption({ label: 'Dátum' });
  await p.getByLabel('Description column').selectOption({ label: 'Fizető fél' });
  await p.getByLabel('Amount column').selectOption({ label: 'Összeg' });
  const body = await sent(p, '/import/csv/preview', () => p.getByRole('button', { name: 'Next: preview' }).click());
  await p.locator('form.preview').waitFor();
  const got = [await p.getByLabel('Description, line 2', { exact: true }).inputValue(), await p.getByLabel('Amount, line 2', { exact: true }).inputValue(),
    await p.getByLabel('Type, line 2', { exact: true }).inputValue(), await p.locator('form.preview p').first().textContent()];
  ok(JSON.stringify(got.slice(0, 3)) === JSON.stringify(['Győri tűzifa', '12500.00', 'debit']) && /the file read as windows-1250\. Rows/.test(got[3])
    && !('encoding' in body.mapping) && body.csv.includes('Győri tűzifa'),
    'csv: its preview has the letters right, from text decoded in the browser (no encoding sent)', { got, mapping: body.mapping });
  await p.getByRole('button', { name: 'Import', exact: true }).click();
  await p.locator('.done').waitFor();
  const row = (await all('carol')).find((t) => t.date === '2025-03-03' && t.amount === 12500);
  ok(row && row.description === 'Győri tűzifa', 'csv: the row is stored with its letters right', row);
}));
await step('csv: the ING preset', () => asUser('dave', async (p) => {
  // A real ING (Netherlands) export: amounts without a sign, the way in
  // "Af Bij", the description from two columns, decimal commas.
  await uploadThenMap(p, 'ing.csv', bankFile('nl-ing.csv'));
  await p.getByLabel('Preset', { exact: true }).selectOption('builtin:ing-nl');
  const kept = await p.locator('.kept').textContent();
  ok(await p.getByLabel('Direction column').inputValue() === '5' && /Description also joins: Mededelingen/.test(kept) && /Decimal mark: “,”/.test(kept),
    'csv: the ING preset maps its direction and shows the keys the form has no control for', kept);
  const body = await sent(p, '/import/csv/preview', () => p.getByRole('button', { name: 'Next: preview' }).click());
  await p.locator('form.preview').waitFor();
  const m = body.mapping;
  ok(JSON.stringify(m.description) === '[1,8]' && m.direction === 5 && m.decimal === ',' && m.date_format === 'YYYYMMDD',
    'csv: the mapping sent keeps the preset\'s description list and decimal mark', m);
  const line = async (l) => [await p.getByLabel(`Amount, line ${l}`, { exact: true }).inputValue(), await p.getByLabel(`Type, line ${l}`, { exact: true }).inputValue()];
  const got = { 2: await line(2), 3: await line(3), 5: await line(5), 6: await line(6), desc: await p.getByLabel('Description, line 2', { exact: true }).inputValue(),
    errors: await p.locator('form.preview .errors').count() };
  ok(JSON.stringify([got[2], got[3], got[5], got[6]]) === JSON.stringify([['1.25', 'debit'], ['1.25', 'credit'], ['20.00', 'credit'], ['0.31', 'debit']])
    && got.desc === 'Kosten OranjePakket met korting - 1 jan t/m 31 jan 2020 ING BANK N.V. Valutadatum: 13-02-2020' && got.errors === 0,
    'csv: its preview has the signs of Af and Bij and the joined description', got);
}));
await step('csv: the Knab preset', () => asUser('dave', async (p) => {
  // A real Knab export: a title line above the header, D/C, three
  // description columns.
  await uploadThenMap(p, 'knab.csv', bankFile('nl-knab.csv'));
  await p.getByLabel('Preset', { exact: true }).selectOption('builtin:knab');
  const skip = await p.getByLabel('Lines before the header').inputValue();
  const kept = await p.locator('.kept').textContent();
  ok(skip === '1' && /Description also joins: Omschrijving, Betaalwijze/.test(kept),
    'csv: the Knab preset finds its header under the title line and keeps its description list', { skip, kept });
  await p.getByLabel('Preset name').fill('Knab mine');
  await p.getByRole('button', { name: 'Save preset' }).click();
  const id = (await api('dave', 'GET', '/me')).id;
  const mine = (await p.evaluate((k) => JSON.parse(localStorage.getItem(`ledger.csvPresets.user.${k}`) || '{}'), id))['Knab mine'];
  ok(mine && JSON.stringify(mine.mapping.description) === '["Tegenrekeninghouder","Omschrijving","Betaalwijze"]'
    && mine.mapping.direction === 'CreditDebet' && mine.mapping.decimal === ',', 'csv: a saved preset keeps the description list, direction and decimal mark', mine);
  await p.getByRole('button', { name: 'Next: preview' }).click();
  await p.locator('form.preview').waitFor();
  const got = [await p.getByLabel('Description, line 3', { exact: true }).inputValue(), await p.getByLabel('Amount, line 3', { exact: true }).inputValue(), await p.getByLabel('Type, line 3', { exact: true }).inputValue(),
    await p.getByLabel('Description, line 4', { exact: true }).inputValue(), await p.getByLabel('Type, line 4', { exact: true }).inputValue()];
  ok(JSON.stringify(got) === JSON.stringify(['Gert Janssen (FR) - Tresorie - Overboeking', '827.75', 'debit', 'Gert Janssen - Ontvangen betaling', 'credit']),
    'csv: its preview reads D as money out and C as money in', got);
  // Another description column is the user's: the preset's list is no
  // longer sent.
  await p.getByRole('button', { name: 'Back' }).click();
  await p.getByLabel('Preset', { exact: true }).selectOption('builtin:knab');
  await p.getByLabel('Description column').selectOption({ label: 'Omschrijving' });
  const left = await p.locator('.kept').textContent();
  const body = await sent(p, '/import/csv/preview', () => p.getByRole('button', { name: 'Next: preview' }).click());
  ok(typeof body.mapping.description === 'number' && body.mapping.decimal === ',' && !/Description also/.test(left) && /Decimal mark/.test(left),
    'csv: choosing another description column drops the preset\'s list, not its decimal mark', { mapping: body.mapping, left });
}));
await step('csv: a warning', () => asUser('dave', async (p) => {
  await mapThenPreview(p, 'Date,Description,Amount\n2025-06-01,Warned row one,10.00\n2025-06-02,Warned row two,20.00\n');
  await p.getByRole('button', { name: 'Next: preview' }).click();
  await p.locator('form.preview').waitFor();
  const w = p.locator('form.preview [role=status]');
  ok(await w.count() === 1 && /no amount in the file is money out/.test(await w.textContent()),
    'csv: the preview shows the service\'s warning for a signed file with no money out');
}));
await step('csv: merchant and category', () => asUser('dave', async (p) => {
  await mapThenPreview(p, 'Date,Description,Amount,Merchant,Category,Memo\n'
    + '2025-07-01,POS 1234 BLUE BOTTLE SF,-4.50,Blue Bottle,Coffee,latte\n2025-07-02,POS 99 GREEN GROCER,-12.00,Green Grocer,Groceries,\n');
  ok(await p.getByLabel('Merchant column').inputValue() === '3' && await p.getByLabel('Category column').inputValue() === '4',
    'csv: the merchant and category columns are found by their names');
  await p.getByLabel('Notes column').selectOption({ label: 'Memo' });
  await p.getByRole('button', { name: 'Next: preview' }).click();
  await p.locator('form.preview').waitFor();
  const shown = [await p.getByLabel('Merchant, line 2', { exact: true }).inputValue(), await p.getByLabel('Category, line 2', { exact: true }).inputValue(),
    await p.locator('form.preview tbody tr').first().textContent()];
  ok(shown[0] === 'Blue Bottle' && shown[1] === 'Coffee' && /Notes: latte/.test(shown[2]), 'csv: the preview shows each row\'s merchant, category and notes', shown);
  await p.getByLabel('Category, line 3', { exact: true }).fill('dining');
  const body = await sent(p, '/import/csv/commit', () => p.getByRole('button', { name: 'Import', exact: true }).click());
  await p.locator('.done').waitFor();
  const rows = (await all('dave')).filter((t) => /BLUE BOTTLE|GREEN GROCER/.test(t.description));
  const blue = rows.find((t) => /BLUE/.test(t.description));
  const green = rows.find((t) => /GREEN/.test(t.description));
  ok(blue && green && blue.category === 'coffee' && green.category === 'dining' && blue.merchant === 'Blue Bottle' && green.merchant === 'Green Grocer'
    && body.rows[0].notes === 'latte' && blue.notes === 'latte', 'csv: merchant, category and notes reach the stored rows, as edited', { rows, sent: body.rows });
}));

// ================================================================ rules: refusals, double submit, quick actions (D9, D3, D8)
await step('rules: refused', () => asUser('erin', async (p) => {
  await go('rules', p);
  await p.getByLabel('Rule name').fill('bad regex rule');
  await p.getByLabel('Condition 1 test').selectOption('matches');
  await p.getByLabel('Condition 1 value').fill('(unclosed');
  await p.getByLabel('Action 1 value').fill('brand-new-tag');
  await p.getByRole('button', { name: 'Create rule' }).click();
  await p.getByRole('alert').filter({ hasText: 'does not compile' }).waitFor();
  ok((await p.getByLabel('Condition 1 value').getAttribute('aria-invalid')) === 'true', 'rules: the refused condition is marked');
  ok(!(await api('erin', 'GET', '/tags')).items.some((t) => t.name === 'brand-new-tag'), 'rules: a refused rule leaves no new tag behind');
  // Amounts with grouping commas, the values apart by a semicolon.
  await p.getByLabel('Rule name').fill('big amounts');
  await p.getByLabel('Condition 1 field').selectOption('amount');
  await p.getByLabel('Condition 1 test').selectOption('between');
  await p.getByLabel('Condition 1 value').fill('1,000.00; 2,000.00');
  await p.getByRole('button', { name: 'Create rule' }).click();
  await p.locator('.msg').first().waitFor();
  const big = (await api('erin', 'GET', '/rules')).items.find((r) => r.name === 'big amounts');
  ok(big && JSON.stringify(big.conditions[0].value) === '[1000,2000]', 'rules: “between 1,000.00; 2,000.00” is two grouped amounts', big || await p.locator('.msg').first().textContent());
}));
await step('rules: double submit', () => asUser('erin', async (p) => {
  await go('rules', p);
  await p.getByLabel('Rule name').fill('dbl rule');
  await p.getByLabel('Condition 1 value').fill('fuel');
  await p.getByLabel('Action 1', { exact: true }).selectOption('set_category');
  await p.getByLabel('Action 1 value').fill('fuel');
  const unslow = await slow(p, (r) => r.method() === 'POST' && /\/api\/rules$/.test(r.url()), 200);
  await p.getByRole('button', { name: 'Create rule' }).dblclick();
  await p.getByRole('status').filter({ hasText: 'Rule “dbl rule” created' }).first().waitFor();
  await unslow();
  ok((await api('erin', 'GET', '/rules')).items.filter((r) => r.name === 'dbl rule').length === 1, 'rules: double-clicking “Create rule” creates one rule');
}));
await step('rules: quick action', () => asUser('erin', async (p) => {
  await api('erin', 'POST', '/rules', { name: 'to travel', manual_only: true, conditions: [], actions: [{ type: 'set_category', category: 'travel' }] });
  await api('erin', 'POST', '/rules', { name: 'mid amounts', conditions: [{ field: 'amount', operator: 'between', value: [7.5, 12.34] }], actions: [{ type: 'set_category', category: 'fees' }] });
  const t = await api('erin', 'POST', '/transactions', { date: '2025-09-01', amount: 12, description: 'taxi to airport' });
  await go('rules', p);
  ok(/amount between \$7\.50 and \$12\.34/.test(await p.locator('li.card.rule', { hasText: 'mid amounts' }).textContent()), 'rules: an amount range reads as money');
  await go('transactions', p);
  await p.getByRole('checkbox', { name: /^Select taxi to airport/ }).check();
  const offered = await p.getByLabel('Action', { exact: true }).locator('option').allTextContents();
  ok(offered.includes('Rule: to travel'), 'rules: a quick-action rule is offered for the selection', offered);
  if (offered.includes('Rule: to travel')) {
    await p.getByLabel('Action', { exact: true }).selectOption({ label: 'Rule: to travel' });
    await p.getByRole('button', { name: 'Apply to selected' }).click();
    await p.getByRole('status').filter({ hasText: 'Rule “to travel” ran on 1 row' }).waitFor();
  }
  ok((await api('erin', 'GET', `/transactions/${t.id}`)).category === 'travel', 'rules: a quick-action rule runs on the selected rows');
  await api('erin', 'DELETE', `/transactions/${t.id}`);
}));

// ================================================================ reconcile: pages and one suggestion per statement row (D12, D1)
await step('reconcile: suggestions', () => asUser('erin', async (p) => {
  await api('erin', 'POST', '/statements', {
    bank_name: 'ANZ', account_type: 'Visa Credit Card', period_start: '2025-08-01', period_end: '2025-08-31',
    transactions: [{ date: '2025-08-10', description: 'HARDWARE STORE', amount: 50, transaction_type: 'debit' }],
  });
  await api('erin', 'POST', '/transactions', { date: '2025-08-10', amount: 50, description: 'hardware A', payment_method: 'card' });
  await api('erin', 'POST', '/transactions', { date: '2025-08-11', amount: 50, description: 'hardware B', payment_method: 'card' });
  await go('reconcile', p);
  const checked = await p.locator('fieldset.card input[type=radio]:checked:not([value=""])').count();
  ok(checked === 1, 'reconcile: a statement row is suggested for one manual row only', checked);
  // Both on the same statement row: said before anything is sent.
  await p.locator('fieldset.card', { hasText: 'hardware A' }).getByLabel(/HARDWARE STORE/).check();
  await p.locator('fieldset.card', { hasText: 'hardware B' }).getByLabel(/HARDWARE STORE/).check();
  await p.getByRole('button', { name: 'Apply selected matches' }).click();
  await p.getByRole('alert').waitFor();
  const said = await p.getByRole('alert').textContent();
  ok(/hardware A/.test(said) && /hardware B/.test(said) && (await p.locator('[aria-invalid=true]').count()) === 1,
    'reconcile: two rows on one statement row are named and marked', said);
  await p.locator('fieldset.card', { hasText: 'hardware B' }).getByLabel('Leave unmatched').check();
  await p.getByRole('button', { name: 'Apply selected matches' }).click();
  await p.getByRole('status').filter({ hasText: 'Reconciled 1 transaction' }).waitFor();
  ok(true, 'reconcile: with one row each, the matches apply');
}));
await step('reconcile: pages', () => asUser('erin', async (p) => {
  for (let i = 0; i < 55; i++) await api('erin', 'POST', '/transactions', { date: `2024-01-${String(1 + (i % 28)).padStart(2, '0')}`, amount: 1 + i, description: `lonely ${i}` });
  const total = (await api('erin', 'GET', '/reconcile')).total;
  await go('reconcile', p);
  const summary = () => p.locator('.pager .summary').textContent({ timeout: 3000 }).catch(() => null);
  ok((await summary()) === `1–50 of ${total} waiting`, 'reconcile: the count is the API’s total', await summary());
  await p.getByRole('button', { name: 'Next →' }).click({ timeout: 3000 });
  await p.locator('.pager .summary', { hasText: /^51–/ }).waitFor();
  ok((await summary()) === `51–${total} of ${total} waiting` && (await p.getByText(/lonely \d+/).count()) === total - 50,
    'reconcile: Next shows the rows past the first page', await summary());
  await p.getByRole('button', { name: '← Previous' }).click();
  await p.locator('.pager .summary', { hasText: /^1–50/ }).waitFor();
  ok(true, 'reconcile: Previous goes back to the first page');
}));

// ================================================================ analytics merchant history (D16)
await step('merchant history', () => asUser('carol', async (p) => {
  await api('carol', 'POST', '/transactions', { date: today, amount: 14, description: 'concert', merchant: 'AC/DC' });
  await api('carol', 'POST', '/transactions', { date: today, amount: 11, description: 'dots', merchant: '..' });
  await go('analytics', p);
  const sel = p.getByLabel('Merchant', { exact: true });
  const hist = p.locator('section[aria-labelledby=h-merchant]');
  await sel.selectOption('AC/DC');
  await hist.getByText('Total $14.00').waitFor();
  await sel.selectOption('..');
  await until(p, () => !document.querySelector('section[aria-labelledby=h-merchant]').textContent.includes('$14.00.'));
  await p.waitForTimeout(200);
  ok(!(await hist.textContent()).includes('Total $14.00') && (await p.getByRole('alert').count()) === 0,
    'analytics: a merchant named “..” shows no other merchant’s history and no error', await hist.textContent());
  await sel.selectOption('AC/DC');
  await hist.getByText('Total $14.00').waitFor();
  ok((await p.getByRole('alert').count()) === 0, 'analytics: no stale error beside a good history');
}));

// ================================================================ budgets meter and month (minor notes)
await step('budget meter', () => asUser('carol', async (p) => {
  await api('carol', 'PUT', '/budgets/pets', { amount: 100 });
  await api('carol', 'POST', '/transactions', { date: today, amount: 30, description: 'vet refund', category: 'pets', transaction_type: 'refund' });
  await go('budgets', p);
  const now = await p.locator('tr[data-category=pets] [role=meter]').getAttribute('aria-valuenow');
  ok(now === '0', 'budgets: refunds over the spend show 0% used, not less', now);
  await p.getByLabel('Month', { exact: true }).fill('');
  await p.getByLabel('Month', { exact: true }).dispatchEvent('change');
  ok((await p.getByLabel('Month', { exact: true }).inputValue()) === today.slice(0, 7), 'budgets: an emptied month field shows this month again');
}));

// ================================================================ home currency (D17)
await step('home currency', () => asUser('carol', async (p) => {
  const carol = await api('carol', 'GET', '/me');
  await api('carol', 'POST', '/transactions', { date: '2025-02-02', amount: 20, description: 'abroad', currency: 'USD', amount_aud: 31 });
  await api('carol', 'POST', '/transactions', { date: '2025-02-01', amount: 10, description: 'at home' });
  await go('transactions', p);
  const abroad = p.locator('tr[data-id]', { hasText: 'abroad' });
  ok(/−USD 20\.00/.test(await abroad.textContent()) && /\$31\.00/.test(await abroad.textContent()), 'currency: a foreign row shows its code, my share the home amount');
  // The same data, were the service's home currency NZD: AUD is then a
  // foreign currency and is labelled so.
  await p.route('**/api/me', (r) => r.fulfill({ contentType: 'application/json', body: JSON.stringify({ ...carol, home_currency: 'NZD' }) }));
  await p.reload();
  const home = p.locator('tr[data-id]', { hasText: 'at home' });
  await home.waitFor();
  ok(/−AUD 10\.00/.test(await home.textContent()) && /amounts in NZD/.test(await p.locator('#who').textContent()),
    'currency: with home currency NZD an AUD row is labelled AUD, not $', await home.textContent());
}));

// ================================================================ skip link (X1)
await step('skip link', () => asUser('carol', async (p) => {
  await go('budgets', p);
  await p.locator('a.skip').focus();
  await p.keyboard.press('Enter');
  await settle(p);
  const got = { hash: await p.evaluate(() => location.hash), h2: await p.locator('main h2').textContent(), focus: await p.evaluate(() => document.activeElement.id) };
  ok(got.hash === '#/budgets' && got.h2 === 'Budgets' && got.focus === 'main', 'skip link: “Skip to content” moves focus to main and keeps the page', got);
  // The hash "#main" itself (an anchor, not a page) keeps the page too.
  await p.evaluate(() => { location.hash = '#main'; });
  await settle(p);
  ok((await p.locator('main h2').textContent()) === 'Budgets', 'skip link: the hash #main is no page name (no “Not found”)', await p.locator('main h2').textContent());
}));

// ================================================================ no category (X2)
await step('no category', () => asUser('dave', async (p) => {
  await api('dave', 'POST', '/transactions', { date: '2025-08-03', amount: 7, description: 'nocat row' });
  const want = (await api('dave', 'GET', '/transactions?categories[]=uncategorised&limit=1')).total;
  await go('transactions', p);
  await p.getByText('Filters and sorting').click();
  await p.getByLabel('Category', { exact: true }).first().selectOption({ label: 'no category' });
  await until(p, (n) => (document.querySelector('.pager .summary')?.textContent || '').endsWith(` of ${n}`)
    && !document.querySelector('table.txns').hasAttribute('aria-busy'), want);
  ok(want > 0 && (await summaryOf(p)).endsWith(` of ${want}`) && (await p.locator('tr[data-id]', { hasText: 'nocat row' }).count()) === 1,
    'no category: the Category filter lists the rows with no category, as the API', { want, shown: await summaryOf(p) });
  // Writing it stays refused: in household words, the API's own after them.
  await p.getByText('New transaction', { exact: true }).click();
  const form = p.getByRole('form', { name: 'New transaction' });
  await form.getByLabel('Amount', { exact: true }).fill('3.00');
  await form.getByLabel('Description', { exact: true }).fill('nocat write');
  await form.getByLabel('Category', { exact: true }).fill('Uncategorised');
  await form.getByRole('button', { name: 'Add transaction' }).click();
  await p.getByRole('alert').waitFor();
  const said = await p.getByRole('alert').textContent();
  ok(/leave the category empty/.test(said) && /send null for none/.test(said)
    && (await form.getByLabel('Category', { exact: true }).getAttribute('aria-invalid')) === 'true',
    'no category: writing “Uncategorised” is refused in household words, the API’s message kept', said);
  await go('budgets', p);
  await p.getByLabel('Category').selectOption('uncategorised');
  await p.getByLabel('Monthly amount').fill('60');
  await p.getByRole('button', { name: 'Set budget' }).click();
  await p.getByRole('status').filter({ hasText: 'Budget for no category set to $60.00' }).waitFor();
  const b = (await api('dave', 'GET', '/budgets')).items.find((x) => x.category === 'uncategorised');
  ok(b && b.amount === 60, 'no category: Budgets sets the budget of the spend with no category', b);
}));

// ================================================================ the service restarting (X3)
await step('service unavailable', () => asUser('erin', async (p) => {
  await api('erin', 'PUT', '/budgets/gifts', { amount: 25 });
  let down = true;
  await p.route('**/api/me', (r) => (down
    ? r.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { status: 503, code: 'unavailable', message: 'the service is restarting' } }) })
    : r.continue()));
  await go('budgets', p);
  const who = await p.locator('#who').textContent();
  const amount = await p.locator('tr[data-category=gifts] td.num').first().textContent();
  ok(!/Not signed in/.test(who) && /not answering/.test(who), 'me: a 503 from /api/me says the service is not answering, not “Not signed in”', who);
  ok(amount === '25.00', 'me: before the home currency is known no amount is labelled as AUD', amount);
  // The service is back: the next page asks again.
  down = false;
  await p.getByRole('link', { name: 'Transactions' }).click();
  const back = await until(p, () => /^Signed in as/.test(document.getElementById('who').textContent));
  await p.getByRole('link', { name: 'Budgets' }).click();
  await p.locator('tr[data-category=gifts]', { hasText: '$25.00' }).waitFor({ timeout: 5000 }).catch(() => {});
  ok(back && /amounts in AUD/.test(await p.locator('#who').textContent())
    && (await p.locator('tr[data-category=gifts] td.num').first().textContent()) === '$25.00',
    'me: once the service answers, the next page shows who is signed in and amounts in the home currency', await p.locator('#who').textContent());
}));

// ================================================================ a participant's split (X4)
await step('participant split', async () => {
  const row = await api('alice', 'POST', '/transactions', { date: '2025-05-20', amount: 60, description: 'shared dinner x4' });
  await api('alice', 'POST', `/transactions/${row.id}/splits`, [{ participant_id: bob.id, share_percent: 30 }]);
  await asUser('bob', async (p) => {
    await go('transactions', p);
    const ed = await editRow(p, row.id);
    const who = ed.getByLabel('Participant 1', { exact: true });
    const chosen = await who.evaluate((s) => s.options[s.selectedIndex].text);
    const options = await who.locator('option').allTextContents();
    ok(chosen.startsWith(bob.email) && !options.some((o) => /alice/.test(o)),
      'split: a participant’s editor lists the row’s own split participants, themselves chosen', { chosen, options });
    ok((await ed.getByRole('button', { name: 'Add person' }).count()) === 0 && (await ed.getByText('Only the row’s owner can add people').count()) === 1,
      'split: a participant is not offered “Add person”, and told why');
    await ed.getByLabel('Share % 1', { exact: true }).fill('40');
    await ed.getByRole('button', { name: 'Save split' }).click();
    await p.getByRole('status').filter({ hasText: 'Split “shared dinner x4” saved' }).waitFor();
    const mine = (await api('alice', 'GET', `/transactions/${row.id}`)).splits.find((x) => x.participant_id === bob.id);
    ok(mine && mine.share_percent === 40, 'split: the participant’s new share is saved', mine);
    // The API names a person by id: shown by name, their menu marked.
    await p.route(`**/api/transactions/${row.id}/splits`, (r) => r.fulfill({ status: 400, contentType: 'application/json',
      body: JSON.stringify({ error: { status: 400, code: 'invalid_field', field: 'participant_id', message: `user ${bob.id} is not one of the participants of the row's owner (only the owner can add them)` } }) }));
    const ed2 = await editRow(p, row.id);
    await ed2.getByRole('button', { name: 'Save split' }).click();
    const alert = ed2.getByRole('alert');
    await alert.waitFor();
    const said = await alert.textContent();
    ok(said.includes(bob.email) && !said.includes(`user ${bob.id}`)
      && (await ed2.getByLabel('Participant 1', { exact: true }).getAttribute('aria-invalid')) === 'true',
      'split: a refusal naming “user N” names the person instead and marks their menu', said);
  });
});

// ================================================================ reconcile after a conflict (X5)
await step('reconcile conflict', () => asUser('erin', async (p) => {
  await api('erin', 'POST', '/statements', {
    bank_name: 'ANZ', account_type: 'Visa Credit Card', period_start: '2025-09-01', period_end: '2025-09-30',
    transactions: [{ date: '2025-09-15', description: 'CAFE ONE', amount: 4.5, transaction_type: 'debit' },
      { date: '2025-09-16', description: 'BOOKSHOP', amount: 22, transaction_type: 'debit' }],
  });
  const coffee = await api('erin', 'POST', '/transactions', { date: '2025-09-15', amount: 4.5, description: 'coffee one', payment_method: 'card' });
  await api('erin', 'POST', '/transactions', { date: '2025-09-16', amount: 22, description: 'books', payment_method: 'card' });
  await go('reconcile', p);
  await p.getByRole('button', { name: 'Clear all choices' }).click();
  await p.locator('fieldset.card', { hasText: 'coffee one' }).getByLabel(/CAFE ONE/).check();
  await p.locator('fieldset.card', { hasText: 'books' }).getByLabel(/BOOKSHOP/).check();
  // Another tab reconciles the coffee meanwhile.
  const cafe = (await api('erin', 'GET', '/reconcile?limit=200')).pending.find((x) => x.transaction.id === coffee.id).candidates[0];
  await api('erin', 'POST', '/reconcile', { matches: [{ manual_id: coffee.id, statement_transaction_id: cafe.id }] });
  await p.getByRole('button', { name: 'Apply selected matches' }).click();
  await p.getByRole('alert').waitFor();
  const said = await p.getByRole('alert').textContent();
  await until(p, () => ![...document.querySelectorAll('fieldset.card legend')].some((l) => l.textContent.includes('coffee one')));
  ok(/“coffee one” of 2025-09-15/.test(said) && !said.includes(`transaction ${coffee.id}`)
    && (await p.locator('fieldset.card', { hasText: 'coffee one' }).count()) === 0,
    'reconcile: a 409 names the row by date and description and reloads the list without it', said);
  // The reloaded list suggests the books' match again: applied as it is.
  await p.getByRole('button', { name: 'Apply selected matches' }).click();
  await p.getByRole('alert').or(p.getByRole('status')).first().waitFor();
  ok(/Reconciled 1 transaction/.test(await p.locator('.messages').first().textContent()),
    'reconcile: after the conflict the remaining match applies as suggested', await p.locator('.messages').first().textContent());
}));

// ================================================================ analytics basis (X6)
await step('analytics basis', () => asUser('carol', async (p) => {
  await go('analytics', p);
  await p.getByLabel('Basis').selectOption('mine');
  await p.getByRole('button', { name: 'Show' }).click();
  const note = p.locator('section[aria-labelledby=h-merchant] .hint', { hasText: 'My share' });
  await note.waitFor({ timeout: 5000 }).catch(() => {});
  ok((await note.count()) === 1, 'analytics: with Basis “my share” the merchant section says it shows the caller\'s part');
  // The list is the API's basis=mine list (the service takes the basis now).
  const from = await p.getByLabel('From month').inputValue(), to = await p.getByLabel('To month').inputValue();
  const top = await api('carol', 'GET', `/analytics/merchants?from=${from}&to=${to}&basis=mine`);
  const first = (await p.locator('ol.top-merchants li').first().textContent()) || '';
  ok(top.items.length > 0 && first.startsWith(`${top.items[0].merchant}: `) && first.replace(/,/g, '').includes(top.items[0].total.toFixed(2)),
    'analytics: the merchant list shows the API\'s basis=mine figures', first, JSON.stringify(top.items[0] || null));
}));

// ================================================================ presets per user (X7)
await step('presets per user', () => asUser('carol', async (p) => {
  await p.goto(`${BASE}/`);
  // A preset of the one store for every user (before presets were per user).
  await p.evaluate(() => localStorage.setItem('ledger.csvPresets', JSON.stringify({ 'Old shared': { name: 'Old shared', mapping: { date: 'Date' } } })));
  await mapThenPreview(p, 'Date,Description,Amount\n2025-01-02,x,-1.00\n');
  await p.getByLabel('Preset name').fill('Carol card 4821');
  await p.getByRole('button', { name: 'Save preset' }).click();
  await p.getByRole('status').filter({ hasText: 'Preset “Carol card 4821” saved' }).waitFor();
  const offered = () => p.getByLabel('Preset', { exact: true }).locator('option').allTextContents();
  await mapThenPreview(p, 'Date,Description,Amount\n2025-01-02,x,-1.00\n');
  const carolSees = await offered();
  // Bob signs in with the same browser.
  await p.route('**/api/me', (r) => r.fulfill({ contentType: 'application/json', body: JSON.stringify(bob) }));
  await mapThenPreview(p, 'Date,Description,Amount\n2025-01-02,x,-1.00\n');
  const bobSees = await offered();
  ok(carolSees.includes('Carol card 4821 (mine)') && !bobSees.some((o) => /Carol card|Old shared/.test(o)),
    'csv: a preset is offered to the user who saved it, not to the next user of the browser', { carolSees, bobSees });
  ok(!carolSees.some((o) => /Old shared/.test(o)) && (await p.evaluate(() => localStorage.getItem('ledger.csvPresets'))) === null,
    'csv: the old store for every user is dropped, offered to nobody');
}));

// ================================================================ rule names (X8)
await step('rule names', () => asUser('carol', async (p) => {
  const tag = await api('carol', 'POST', '/tags', { name: 'gift-tag' });
  const gone = await api('carol', 'POST', '/tags', { name: 'gone-tag' });
  const trip = await api('carol', 'POST', '/trips', { name: 'Tassie trip' });
  const bobP = await api('carol', 'POST', '/participants', { email: bob.email });
  await api('carol', 'POST', '/transactions', { date: '2025-05-05', amount: 18, description: 'rulepreview lunch' });
  await api('carol', 'POST', '/rules', { name: 'named rule', conditions: [{ field: 'description', operator: 'contains', value: 'rulepreview' }],
    actions: [{ type: 'add_tag', tag_id: tag.id }, { type: 'set_trip', trip_id: trip.id }, { type: 'apply_split', shares: [{ participant_id: bobP.id, share_percent: 25 }] }] });
  await api('carol', 'POST', '/rules', { name: 'broken rule', conditions: [{ field: 'description', operator: 'contains', value: 'nothing-matches' }],
    actions: [{ type: 'add_tag', tag_id: gone.id }] });
  await api('carol', 'DELETE', `/tags/${gone.id}`);
  await go('rules', p);
  const card = await p.locator('li.card.rule', { hasText: 'named rule' }).locator('p').first().textContent();
  ok(/tag “gift-tag”/.test(card) && /trip “Tassie trip”/.test(card) && card.includes(`split with ${bob.email} 25%`) && !/#\d/.test(card),
    'rules: a card names its tag, trip and split people', card);
  const broken = await p.locator('li.card.rule', { hasText: 'broken rule' }).locator('p').first().textContent();
  ok(/deleted tag/.test(broken), 'rules: a rule whose tag is deleted says so', broken);
  await p.getByRole('button', { name: 'Preview rule named rule' }).click();
  const li = p.locator('.preview-rows li').first();
  await li.waitFor();
  const text = await li.textContent();
  ok(/2025-05-05 · rulepreview lunch · \$18\.00/.test(text) && /trip none → “Tassie trip”/.test(text) && /\+ “gift-tag”/.test(text)
    && text.includes(`${bob.email} 25%`) && !/[{}]/.test(text),
    'rules: a preview shows the row by date, description and amount, and the changes in words', text);
}));

// ================================================================ a statement file's warnings
// A file read with a warning (an empty CURDEF) says so on the page.
await step('statements: warnings', () => asUser('erin', async (p) => {
  await go('statements', p);
  await p.getByText('Import a statement file').click();
  await p.getByLabel('OFX, QFX, QIF or CAMT.053 statement file').setInputFiles({ name: 'empty-tags.ofx', mimeType: 'application/x-ofx',
    buffer: readFileSync(new URL('../../../t/data/bank/ofx/ofxparse-v102-empty-tags.ofx', import.meta.url)) });
  await p.getByRole('button', { name: 'Import statement' }).click();
  const warned = p.getByRole('list', { name: 'Import warnings' });
  await warned.waitFor();
  ok(/CURDEF> is empty/.test(await warned.textContent()), 'statements: an import\'s warnings are shown', await warned.textContent());
}));

// ================================================================ minor: amounts, percentages (money)
await step('amount inputs', () => asUser('carol', async (p) => {
  await go('transactions', p);
  const parsed = await p.evaluate(async () => {
    const m = await import('/js/money.js');
    const t = (x) => { try { return m.parseMoneyInput(x); } catch { return 'error'; } };
    return [t('.50'), t('-.5'), t('.'), t('.123')];
  });
  ok(JSON.stringify(parsed) === '[50,-50,"error","error"]', 'money: “.50” is 0.50; “.” and three decimals are refused', parsed);
  await p.getByText('New transaction', { exact: true }).click();
  const form = p.getByRole('form', { name: 'New transaction' });
  await form.getByLabel('Amount', { exact: true }).fill('.50');
  await form.getByLabel('Description', { exact: true }).fill('half a dollar');
  await form.getByRole('button', { name: 'Add transaction' }).click();
  await p.getByRole('status').filter({ hasText: 'Added “half a dollar” ($0.50)' }).waitFor();
  const row = (await all('carol')).find((t) => t.description === 'half a dollar');
  ok(row && row.amount === 0.5, 'money: a new row of “.50” is 0.50 in the API', row);
  const ed = await editRow(p, row.id);
  await ed.getByLabel('My share %').fill('12.345');
  await ed.getByRole('button', { name: 'Save', exact: true }).click();
  const alert = ed.getByRole('alert');
  await alert.waitFor();
  const said = await alert.textContent();
  ok(/percentage/.test(said) && !/amount/.test(said), 'money: a bad share % speaks of a percentage, not an amount', said);
}));

// ================================================================ suggestions (issue #31)
// bob's own history: three Blue Bottle rows he called dining; three more
// there without a category get dining suggested, with the reason.
await step('suggestions', () => asUser('bob', async (p) => {
  const mk = (day, cat) => api('bob', 'POST', '/transactions', {
    date: `2025-06-${String(day).padStart(2, '0')}`, amount: 4.5, description: `SQ *BLUE BOTTLE COFFEE ${day}`,
    merchant: 'Blue Bottle Coffee', ...(cat ? { category: cat } : {}) });
  for (const d of [1, 2, 3]) await mk(d, 'dining');
  // New manual rows take suggestions above the threshold as they are
  // made; these three are to stay uncategorised for the page to suggest.
  await api('bob', 'PUT', '/suggestions/settings', { threshold: 1.01 });
  const [one, two, stale] = [await mk(10), await mk(11), await mk(12)];
  await api('bob', 'PUT', '/suggestions/settings', { threshold: null });
  const categoryOf = async (t) => (await api('bob', 'GET', `/transactions/${t.id}`)).category;
  await go('suggestions', p);
  const rowOf = (t) => p.locator(`table.suggestions tbody tr[data-id="${t.id}"]`);
  ok((await p.locator('table.suggestions tbody tr[data-id]').count()) === 3, 'suggestions: the three rows without a category are listed');
  const reason = await rowOf(one).locator('td.reason').textContent();
  ok(/3 of your 3 rows at Blue Bottle Coffee are dining/.test(reason), 'suggestions: a row shows the suggestion\'s reason', reason);
  const shown = await rowOf(one).textContent();
  ok(/dining/.test(shown) && /75%/.test(shown) && /\$4\.50/.test(shown) && /Blue Bottle Coffee/.test(shown),
    'suggestions: with its category, confidence, amount and merchant', shown);
  await p.getByText('When statement imports apply suggestions').click();
  await labelsChecked('suggestions', p);
  await shot('suggestions', p);
  await p.getByText('When statement imports apply suggestions').click();

  // A row categorised elsewhere meanwhile: the service's refusal is shown.
  await api('bob', 'PATCH', `/transactions/${stale.id}`, { category: 'groceries' });
  await rowOf(stale).getByRole('button', { name: /^Accept/ }).click();
  const alert = p.getByRole('alert');
  await alert.waitFor();
  ok(/409 conflict/.test(await alert.textContent()), 'suggestions: accepting a row that has a category meanwhile shows the 409', await alert.textContent());
  ok(await categoryOf(stale) === 'groceries', 'suggestions: and its category stays');

  await rowOf(one).getByRole('button', { name: /^Accept/ }).click();
  await p.getByRole('status').filter({ hasText: '1 row categorised' }).waitFor();
  ok(await categoryOf(one) === 'dining' && await categoryOf(two) === null, 'suggestions: Accept sets that row\'s category (GET /api/transactions), no other');
  ok(!(await rowOf(one).count()), 'suggestions: and the row leaves the list');
  const firstRun = (await api('bob', 'GET', '/rules/runs')).items.find((r) => r.suggestions);

  await p.getByRole('button', { name: 'Accept all' }).click();
  await p.getByRole('status').filter({ hasText: 'Accepted every suggestion' }).waitFor();
  ok(await categoryOf(two) === 'dining', 'suggestions: Accept all sets the rest', await categoryOf(two));
  ok(/Every row has a category/.test(await p.locator('table.suggestions tbody').textContent()), 'suggestions: none left to suggest');

  // Undo, from the message: the Accept all run; from the runs: the first.
  await p.getByRole('status').getByRole('button', { name: /^Undo run/ }).click();
  await p.getByRole('status').filter({ hasText: 'undone' }).waitFor();
  ok(await categoryOf(two) === null && await categoryOf(one) === 'dining', 'suggestions: Undo reverts that run: its row has no category again');
  await p.locator(`table.runs tr[data-id="${firstRun.id}"]`).getByRole('button', { name: /^Undo run/ }).click();
  await p.getByRole('status').filter({ hasText: `Run ${firstRun.id} undone` }).waitFor();
  ok(await categoryOf(one) === null && await categoryOf(stale) === 'groceries', 'suggestions: and the first run too; the row categorised elsewhere keeps its category');
  ok((await p.locator('table.suggestions tbody tr[data-id]').count()) === 2, 'suggestions: the two rows are listed again');

  // The threshold.
  await p.getByText('When statement imports apply suggestions').click();
  await p.getByLabel('Statement imports apply suggestions by themselves').selectOption('at_least');
  await p.getByLabel('How sure, %').fill('150');
  await p.getByRole('button', { name: 'Save threshold' }).click();
  await p.getByRole('alert').filter({ hasText: 'from 0 to 100' }).waitFor();
  ok((await api('bob', 'GET', '/suggestions/settings')).threshold === null, 'suggestions: a threshold of 150% is refused, nothing saved');
  await p.getByLabel('How sure, %').fill('80');
  await p.getByRole('button', { name: 'Save threshold' }).click();
  await p.getByRole('status').filter({ hasText: 'at least 80% sure' }).waitFor();
  ok((await api('bob', 'GET', '/suggestions/settings')).threshold === 0.8, 'suggestions: the threshold is set to 0.8');
  await p.getByLabel('Statement imports apply suggestions by themselves').selectOption('default');
  await p.getByRole('button', { name: 'Save threshold' }).click();
  await p.getByRole('status').filter({ hasText: 'the default' }).waitFor();
  ok((await api('bob', 'GET', '/suggestions/settings')).threshold === null, 'suggestions: and back to the default (null)');
}));

// ================================================================ If-Match: no lost updates
// Each write of an existing resource names the version the page shows;
// a change made meanwhile through the API (the same user on another
// device) is kept, the page shows it with an alert, and a second save,
// made knowing it, goes through.
// The writes a page sends, with their If-Match.
function writesOf(p) {
  const seen = [];
  p.on('request', (r) => {
    if (['PATCH', 'PUT', 'DELETE'].includes(r.method()) && r.url().includes('/api/')) {
      seen.push({ method: r.method(), path: new URL(r.url()).pathname.replace(/^\/api/, ''), ifMatch: r.headers()['if-match'] || null });
    }
  });
  return seen;
}
const sentIfMatch = (seen, method, path) => seen.filter((w) => w.method === method && w.path === path).every((w) => /^(W\/)?"[^"]+"$/.test(w.ifMatch || ''))
  && seen.some((w) => w.method === method && w.path === path);

await step('if-match: transaction', () => asUser('dave', async (p) => {
  const row = await api('dave', 'POST', '/transactions', { date: today, amount: 9.99, description: 'IFMATCH coffee', transaction_type: 'debit', category: 'dining' });
  const path = `/transactions/${row.id}`;
  const seen = writesOf(p);
  await go('transactions', p);
  await p.locator('tr[data-id]', { hasText: 'IFMATCH coffee' }).getByRole('button', { name: /^Edit/ }).click();
  const ed = p.locator('tr.editor');
  await ed.getByLabel('Category', { exact: true }).fill('groceries');
  await ed.getByLabel('Merchant', { exact: true }).fill('Corner cafe');
  // The other device, behind the browser's back.
  await api('dave', 'PATCH', path, { category: 'travel', merchant_normalized: 'Airport kiosk' });
  await ed.getByRole('button', { name: 'Save', exact: true }).click();
  const alert = p.locator('tr.editor [role=alert]');
  await alert.waitFor();
  const text = await alert.textContent();
  ok(/Someone changed this transaction since you opened it/.test(text) && /not saved/.test(text) && /category “groceries”/.test(text),
    'if-match: a save of a transaction changed meanwhile is refused with an alert naming the unsaved changes', text);
  ok(await ed.getByLabel('Category', { exact: true }).inputValue() === 'travel' && await ed.getByLabel('Merchant', { exact: true }).inputValue() === 'Airport kiosk',
    'if-match: the editor shows the newer version', [await ed.getByLabel('Category', { exact: true }).inputValue()]);
  let now = await api('dave', 'GET', path);
  ok(now.category === 'travel' && now.merchant_normalized === 'Airport kiosk', 'if-match: the other device’s change is kept, not overwritten', now);
  ok(sentIfMatch(seen, 'PATCH', path), 'if-match: the transaction’s PATCH sent If-Match', seen);
  // A second save, knowing the newer version, goes through.
  await ed.getByRole('button', { name: 'Re-apply my changes' }).click();
  ok(await ed.getByLabel('Category', { exact: true }).inputValue() === 'groceries', 'if-match: “Re-apply my changes” puts the unsaved input back');
  await ed.getByRole('button', { name: 'Save', exact: true }).click();
  await p.getByRole('status').filter({ hasText: 'Saved “IFMATCH coffee”' }).waitFor();
  now = await api('dave', 'GET', path);
  ok(now.category === 'groceries' && now.merchant_normalized === 'Corner cafe', 'if-match: the second save goes through', now);

  // Delete: the newer version is shown, and asked about again.
  await p.locator('tr[data-id]', { hasText: 'IFMATCH coffee' }).getByRole('button', { name: /^Edit/ }).click();
  await ed.getByRole('button', { name: 'Delete' }).waitFor();
  await api('dave', 'PATCH', path, { description: 'IFMATCH coffee and cake' });
  await ed.getByRole('button', { name: 'Delete' }).click();
  await p.locator('tr.editor [role=alert]', { hasText: 'not deleted' }).waitFor();
  ok(await ed.getByLabel('Description', { exact: true }).inputValue() === 'IFMATCH coffee and cake', 'if-match: a delete of a changed transaction shows the newer version');
  ok((await api('dave', 'GET', path)).description === 'IFMATCH coffee and cake', 'if-match: and deletes nothing');
  await ed.getByRole('button', { name: 'Delete' }).click();
  await p.getByRole('status').filter({ hasText: 'Deleted “IFMATCH coffee and cake”' }).waitFor();
  ok(!(await all('dave')).some((t) => t.id === row.id), 'if-match: deleting again deletes it');
  ok(sentIfMatch(seen, 'DELETE', path), 'if-match: the transaction’s DELETE sent If-Match', seen);
}));

await step('if-match: rule', () => asUser('dave', async (p) => {
  const rule = await api('dave', 'POST', '/rules', { name: 'ifm rule', conditions: [{ field: 'description', operator: 'contains', value: 'ifm' }], actions: [{ type: 'set_category', category: 'fees' }] });
  const path = `/rules/${rule.id}`;
  const seen = writesOf(p);
  await go('rules', p);
  await p.getByRole('button', { name: 'Disable rule ifm rule' }).waitFor();
  await api('dave', 'PATCH', path, { name: 'ifm rule renamed' });
  await p.getByRole('button', { name: 'Disable rule ifm rule' }).click();
  const alert = p.getByRole('alert').filter({ hasText: 'Someone changed the rule' });
  await alert.waitFor();
  ok(/“ifm rule renamed”/.test(await alert.textContent()) && /not disabled/.test(await alert.textContent()), 'if-match: disabling a rule renamed meanwhile shows the newer version', await alert.textContent());
  let now = await api('dave', 'GET', path);
  ok(now.enabled === true && now.name === 'ifm rule renamed', 'if-match: the rule stays enabled, renamed', now);
  await p.getByRole('button', { name: 'Disable rule ifm rule renamed' }).click();
  await p.getByRole('button', { name: 'Enable rule ifm rule renamed' }).waitFor();
  now = await api('dave', 'GET', path);
  ok(now.enabled === false && now.name === 'ifm rule renamed', 'if-match: disabling it again goes through', now);
  ok(sentIfMatch(seen, 'PATCH', path), 'if-match: the rule’s PATCH sent If-Match', seen);
}));

await step('if-match: budget', () => asUser('dave', async (p) => {
  const path = '/budgets/groceries';
  await api('dave', 'PUT', path, { amount: 300 });
  const seen = writesOf(p);
  await go('budgets', p);
  await p.locator('tr[data-category=groceries]', { hasText: '$300.00' }).waitFor();
  await api('dave', 'PUT', path, { amount: 350 });
  await p.getByLabel('Category', { exact: true }).selectOption('groceries');
  await p.getByLabel('Monthly amount', { exact: true }).fill('400');
  await p.getByRole('button', { name: 'Set budget' }).click();
  let alert = p.getByRole('alert').filter({ hasText: 'Someone changed the groceries budget' });
  await alert.waitFor();
  ok(/\$350\.00/.test(await alert.textContent()) && /\$400\.00 was not saved/.test(await alert.textContent()), 'if-match: a budget changed meanwhile is not replaced; the alert says by what', await alert.textContent());
  ok((await api('dave', 'GET', path)).amount === 350, 'if-match: the other device’s 350.00 is kept');
  ok(/\$350\.00/.test(await p.locator('tr[data-category=groceries]').textContent()) && await p.getByLabel('Monthly amount', { exact: true }).inputValue() === '400',
    'if-match: the table shows 350.00, and the amount typed stays');
  // The other device again, between the page's read of the version and
  // its write: the service's 412, not the page's own comparison, stops it.
  let raced = false;
  await p.route('**/api/budgets/groceries', async (route) => {
    if (route.request().method() === 'PUT' && !raced) {
      raced = true;
      await api('dave', 'PUT', path, { amount: 360 });
    }
    await route.continue();
  });
  await p.getByRole('button', { name: 'Set budget' }).click();
  alert = p.getByRole('alert').filter({ hasText: 'it is now $360.00' });
  await alert.waitFor();
  ok(raced && (await api('dave', 'GET', path)).amount === 360, 'if-match: a change between the read and the write is kept too (412)');
  await p.unroute('**/api/budgets/groceries');
  await p.getByRole('button', { name: 'Set budget' }).click();
  await p.getByRole('status').filter({ hasText: 'Budget for groceries set to $400.00' }).waitFor();
  ok((await api('dave', 'GET', path)).amount === 400, 'if-match: setting it again, knowing the newer amount, goes through');
  ok(sentIfMatch(seen, 'PUT', path), 'if-match: the budget’s PUT sent If-Match', seen);
}));

await step('if-match: trip', () => asUser('dave', async (p) => {
  const trip = await api('dave', 'POST', '/trips', { name: 'IFM trip' });
  const path = `/trips/${trip.id}`;
  const seen = writesOf(p);
  await go('trips', p);
  await p.getByRole('button', { name: 'Delete trip IFM trip' }).waitFor();
  await api('dave', 'PATCH', path, { name: 'IFM trip renamed' });
  await p.getByRole('button', { name: 'Delete trip IFM trip' }).click();
  const alert = p.getByRole('alert').filter({ hasText: 'Someone changed the trip' });
  await alert.waitFor();
  ok(/now “IFM trip renamed”/.test(await alert.textContent()) && /not deleted/.test(await alert.textContent()), 'if-match: deleting a trip renamed meanwhile shows the newer name and deletes nothing', await alert.textContent());
  ok((await api('dave', 'GET', path)).name === 'IFM trip renamed', 'if-match: the renamed trip is kept');
  await p.getByRole('button', { name: 'Delete trip IFM trip renamed' }).click();
  await p.getByRole('status').filter({ hasText: 'Trip “IFM trip renamed” deleted' }).waitFor();
  ok(!(await api('dave', 'GET', '/trips')).items.some((t) => t.id === trip.id), 'if-match: deleting it again goes through');
  ok(sentIfMatch(seen, 'DELETE', path), 'if-match: the trip’s DELETE sent If-Match', seen);
}));

// ================================================================ a long unbroken word (phone)
await step('long words', async () => {
  const long = `https://shop.example.com/orders/${'x'.repeat(80)}`;
  await api('alice', 'POST', '/statements', {
    bank_name: 'ANZ', account_type: 'Visa Credit Card', period_start: '2025-05-01', period_end: '2025-05-31',
    transactions: [{ date: '2025-05-10', description: `STMT ${long}`, amount: 77.77, transaction_type: 'debit' }],
  });
  await api('alice', 'POST', '/transactions', { date: '2025-05-10', amount: 77.77, description: long, payment_method: 'card' });
  await api('alice', 'POST', '/transactions', { date: '2025-05-11', amount: 1.23, description: `lone ${long}`, payment_method: 'card' });
  ok(true, 'phone: rows with a long unbroken description wait on Reconcile (the phone check below)');
});

// ================================================================ phone width
await step('phone', async () => {
  await page.setViewportSize({ width: 375, height: 800 });
  for (const name of ['transactions', 'statements', 'import', 'reconcile', 'rules', 'suggestions', 'trips', 'budgets', 'analytics', 'export']) {
    await go(name);
    await page.waitForTimeout(200);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    ok(width <= 375, `phone: ${name} fits 375px without sideways scrolling`, width);
    await page.screenshot({ path: `${ART}/${name}-375.png`, fullPage: true });
  }
});

ok(pageErrors.length === 0, 'no script errors in the pages', pageErrors.join('\n'));
await browser.close();
console.log(`# ${failures} failed`);
process.exit(failures ? 1 : 0);
