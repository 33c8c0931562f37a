// The report page (`cvmcheck report`, docs/report.md) in a real browser: Debian's chromium,
// headless, driven by playwright-core (no browser download). Run by ci/browser-test.sh, which
// installs both and writes the fixture (tests/browser/make-fixture.sh) into CVMCHECK_FIXTURE.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { pathToFileURL } = require("node:url");
const { openPage } = require("./open_page.cjs");

const fixture = process.env.CVMCHECK_FIXTURE;
if (!fixture) throw new Error("CVMCHECK_FIXTURE is not set (run ci/browser-test.sh)");
const pageFile = path.join(fixture, "head", "report.html");
const pageUrl = pathToFileURL(pageFile).href;
const head = JSON.parse(fs.readFileSync(path.join(fixture, "head", "campaign.json"), "utf8"));
const base = JSON.parse(fs.readFileSync(path.join(fixture, "base", "campaign.json"), "utf8"));

let browser, page, consoleErrors, requests;

test.before(async () => {
  ({ browser, page, consoleErrors, requests } = await openPage(pageUrl));
});

test.after(async () => { if (browser) await browser.close(); });

test("the fixture has what the tests need", () => {
  const sigs = new Set(base.findings.map((f) => f.signature));
  assert.ok(head.findings.some((f) => f.backend === "planted-clip-upper-bound-off-by-one" && !sigs.has(f.signature)),
    "the head run has a new planted finding");
  assert.ok(head.findings.some((f) => f.expected_by), "the head run has an expected failure");
  assert.ok(Object.values(head.table).some((row) => Object.values(row).some((c) => c.cases === 0 && c.skipped > 0)),
    "the head run has a skipped cell");
});

test("the page renders with no console error and no network request", async () => {
  await page.waitForSelector("#matrix-table");
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(requests.filter((u) => u !== pageUrl && !u.startsWith("data:")), []);
  assert.equal(await page.title(), "cvmcheck run " + head.seed);
});

test("every matrix cell equals campaign.json's counts", async () => {
  const cells = await page.$$eval("button.cell", (bs) => bs.map((b) => ({ ...b.dataset, text: b.textContent })));
  const ops = Object.keys(head.table);
  assert.equal(cells.length, ops.length * head.backends.length, "one cell per operator and backend");
  for (const c of cells) {
    const j = head.table[c.op][c.backend];
    assert.ok(j, `${c.op} x ${c.backend} is in campaign.json`);
    const want = { cases: j.cases, pass: j.cases - j.mismatches, unexpected: j.mismatches - (j.expected || 0),
                   expected: j.expected || 0, skipped: j.skipped };
    const got = { cases: +c.cases, pass: +c.pass, unexpected: +c.unexpected, expected: +c.expected, skipped: +c.skipped };
    assert.deepEqual(got, want, `${c.op} x ${c.backend}`);
    if (j.cases > 0) assert.ok(c.text.includes(`${want.pass}/${j.cases}`), `${c.op} x ${c.backend} shows pass/cases: ${c.text}`);
    else if (j.skipped > 0) assert.ok(c.text.includes("skip"), `${c.op} x ${c.backend} says skip`);
  }
  // The column totals add the cells.
  for (const b of head.backends) {
    const cases = Object.values(head.table).reduce((a, row) => a + row[b].cases, 0);
    const text = await page.textContent(`td[data-total-backend="${b}"]`);
    if (cases > 0) assert.ok(text.includes("/" + cases), `total of ${b}: ${text}`);
  }
});

test("a failed run shows its banner and facts", async () => {
  assert.ok(head.mismatching_calls > 0);
  assert.equal(await page.locator('[data-banner="failed"]').count(), 1);
  assert.equal((await page.textContent('[data-fact="commit"]')).trim(), "head1111");
  assert.match(await page.textContent('[data-fact="calls"]'), /calls\/s/);
  // 64-bit seeds exactly (as text: a JavaScript number would round them).
  assert.equal((await page.textContent('[data-fact="seed"]')).trim(), String(head.seed));
});

test("opening a cell shows its findings and their repro lines", async () => {
  const f = head.findings.find((x) => x.backend === "planted-clip-upper-bound-off-by-one");
  await page.click(`button.cell[data-op="${f.op}"][data-backend="${f.backend}"]`);
  const panel = page.locator("#cell-panel");
  assert.ok(await panel.isVisible());
  const text = await panel.textContent();
  assert.ok(text.includes(f.signature), "the finding's signature");
  assert.ok(text.includes(f.calls.toLocaleString("en-US") + " call"), "its calls");
  const repro = await panel.locator("pre.repro").first().textContent();
  assert.ok(f.repro_dir, "the finding has a repro");
  assert.ok(repro.includes(`cvmcheck run ${f.repro_dir}`), "the repro directory line: " + repro);
  assert.ok(repro.includes("cvmcheck run --call '"), "the descriptor line: " + repro);
});

test("an expected failure's cell shows its reason and link", async () => {
  const f = head.findings.find((x) => x.expected_by);
  await page.click(`button.cell[data-op="${f.op}"][data-backend="${f.backend}"]`);
  const text = await page.textContent("#cell-panel");
  assert.ok(text.includes("planted: sum raises runtime_error for bad inputs"), text);
  assert.ok(await page.locator("#cell-panel a").count() >= 1, "a link to the list's entry");
});

test("known differences are grouped by rule id", async () => {
  const expected = head.findings.filter((f) => f.expected_by);
  const row = page.locator('#known-groups tr[data-rule="[planted-sum]"]');
  assert.equal(await row.count(), 1);
  const calls = expected.reduce((a, f) => a + f.calls, 0);
  assert.equal(await row.locator("td").nth(1).textContent(), calls.toLocaleString("en-US"));
  // Unexpected findings keep a row each; the expected ones are only in their group.
  const rows = await page.$$eval("#findings-table tr[data-signature]", (trs) => trs.map((tr) => tr.dataset.signature));
  assert.deepEqual(rows, head.findings.filter((f) => !f.expected_by).map((f) => f.signature));
});

test("the kernel paths table equals campaign.json's paths", async () => {
  const paths = head.paths || {};
  const declaring = Object.keys(paths).filter((b) => (paths[b].declared_in_scope || []).length);
  assert.ok(declaring.includes("optimized"), "optimized declares kernel paths in the fixture");
  for (const b of declaring) {
    const p = paths[b];
    const here = Object.keys(p.unreachable || {}).length, never = (p.not_reached || []).length;
    const declared = p.declared_in_scope.length - here;
    const row = page.locator('#paths-table tr[data-backend="' + b + '"]');
    assert.equal(await row.count(), 1, b);
    assert.equal(await row.locator("td").nth(1).textContent(), (declared - never) + " / " + declared);
  }
  const unreached = declaring.filter((b) => (paths[b].not_reached || []).length);
  assert.equal(await page.locator('[data-banner="paths"]').count(), unreached.length ? 1 : 0);
});

test("a skipped cell says why", async () => {
  const [op, backend] = Object.entries(head.table).flatMap(([o, row]) =>
    Object.entries(row).filter(([, c]) => c.cases === 0 && c.skipped > 0).map(([b]) => [o, b]))[0];
  const title = await page.getAttribute(`button.cell[data-op="${op}"][data-backend="${backend}"]`, "title");
  assert.match(title, /skipped \(.+\)/);
});

test("the diff view lists the planted new finding", async () => {
  const f = head.findings.find((x) => x.backend === "planted-clip-upper-bound-off-by-one");
  const items = await page.$$eval("ul.diff-new li", (lis) => lis.map((li) => li.dataset.signature));
  assert.ok(items.includes(f.signature), "new findings: " + items.join(", "));
  const fixed = await page.$$eval("ul.diff-fixed li", (lis) => lis.length);
  assert.equal(fixed, 0);
  const cells = await page.textContent("ul.diff-cells");
  assert.ok(cells.includes(`${f.op} on ${f.backend}`), "the cell that changed");
});

test("the history chart is inline SVG with one bar per run", async () => {
  assert.equal(await page.locator("#history-chart svg rect[data-new]").count(), 2);
  const added = await page.$$eval("#history-chart svg rect[data-new]", (rs) => rs.map((r) => Number(r.dataset.new)));
  assert.ok(added[1] >= 1, "the head run adds a finding: " + added);
});

test("a run that compared nothing says so, not that it passed", async () => {
  const other = await browser.newPage();
  const errors = [];
  other.on("pageerror", (e) => errors.push(String(e)));
  await other.goto(pathToFileURL(path.join(fixture, "nothing", "report.html")).href, { waitUntil: "load" });
  const banner = await other.textContent('[data-banner="nothing-compared"]');
  assert.match(banner, /planted-max-clamps-at-zero/);
  assert.equal(await other.locator('[data-banner="passed"]').count(), 0);
  assert.deepEqual(errors, []);
  await other.close();
});

test("MRT, golden and gate sections are filled", async () => {
  assert.ok((await page.locator("#mrt-view td").count()) > 10);
  assert.ok((await page.textContent("#golden-view")).includes("reference"));
  assert.ok((await page.textContent("#gate-view")).includes("cvmcheck gate: passed"));
  assert.deepEqual(consoleErrors, [], "still no console error after every click");
});
