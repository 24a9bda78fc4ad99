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
import { mkdirSync } from 'node:fs';

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

async function go(name) {
  const url = `${BASE}/#/${name}`;
  // The same hash again is no navigation: load the page afresh instead.
  if (page.url() === url) await page.reload(); else await page.goto(url);
  await page.waitForSelector('main h2');
  await page.waitForFunction(() => !document.querySelector('main').hasAttribute('aria-busy'));
}
async function shot(name) {
  await page.screenshot({ path: `${ART}/${name}-desktop.png`, fullPage: true });
}
// Every visible form control has a label (label element, aria-label or
// aria-labelledby); returns the unlabelled ones.
async function unlabelled() {
  return page.evaluate(() => [...document.querySelectorAll('input, select, textarea')]
    .filter((el) => el.type !== 'hidden' && el.getClientRects().length)
    .filter((el) => !((el.labels && [...el.labels].some((l) => l.textContent.trim())) || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')))
    .map((el) => el.outerHTML.slice(0, 120)));
}
async function labelsChecked(pageName) {
  const bad = await unlabelled();
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
  await page.waitForFunction(() => document.querySelectorAll('table.txns tbody tr[data-id]').length === 7);
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
  await sp.getByLabel('Participant 1', { exact: true }).selectOption({ label: bob.email });
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
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('ledger.csvPresets') || '{}'));
  ok(stored['My credit union'] && stored['My credit union'].mapping.amount === 'Amount', 'csv: the user preset is kept in localStorage', stored);
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
  ok(/bob@example\.org \$34\.86/.test(await page.locator('.trip-detail .owed').textContent()), 'trips: Bob owes his 34.86 share (by his email: he set no name)', await page.locator('.trip-detail .owed').textContent());
  await labelsChecked('trips');
  await shot('trips');
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
  await labelsChecked('analytics');
  await shot('analytics');
});

// ================================================================ phone width
await step('phone', async () => {
  await page.setViewportSize({ width: 375, height: 800 });
  for (const name of ['transactions', 'statements', 'import', 'reconcile', 'rules', 'trips', 'budgets', 'analytics']) {
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
