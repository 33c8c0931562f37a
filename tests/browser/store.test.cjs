// The report page with the findings store (`cvmcheck report --store`, docs/report.md) in a real
// browser: three runs into one store (tests/browser/make-fixture.sh: clean, a planted bug, clean
// again) show the finding new, then fixed, with the store's run history and the culprit a bisect
// recorded. Run by ci/browser-test.sh.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { pathToFileURL } = require("node:url");
const { openPage } = require("./open_page.cjs");

const fixture = process.env.CVMCHECK_FIXTURE;
if (!fixture) throw new Error("CVMCHECK_FIXTURE is not set (run ci/browser-test.sh)");
const pageUrl = pathToFileURL(path.join(fixture, "store", "report.html")).href;
const runs = [1, 2, 3].map((k) =>
  JSON.parse(fs.readFileSync(path.join(fixture, "store", String(k), "campaign.json"), "utf8")));

let browser, page, consoleErrors, requests;

test.before(async () => {
  ({ browser, page, consoleErrors, requests } = await openPage(pageUrl));
});

test.after(async () => { if (browser) await browser.close(); });

test("the store's fixture: a clean run, the planted bug, a clean run", () => {
  assert.equal(runs[0].findings.length, 0);
  assert.equal(runs[1].findings.length, 1, "the planted bug is one finding");
  assert.equal(runs[2].findings.length, 0);
  assert.ok(runs.every((r) => r.calls > 0 && r.backends.includes("mine")));
});

test("the store's runs are the history, with their calls, new and fixed findings", async () => {
  await page.waitForSelector("#store-runs");
  const rows = await page.$$eval("#store-runs tr[data-run]", (trs) => trs.map((tr) => ({ ...tr.dataset })));
  assert.deepEqual(rows.map((r) => [r.run, r.new, r.fixed]), [["1", "0", "0"], ["2", "1", "0"], ["3", "0", "1"]]);
  const calls = await page.$$eval("#store-runs tr[data-run] td:nth-child(5)", (tds) => tds.map((t) => t.textContent));
  assert.deepEqual(calls, runs.map((r) => r.calls.toLocaleString("en-US")));
  // The chart draws the same runs.
  const added = await page.$$eval("#history-chart svg rect[data-new]", (rs) => rs.map((r) => Number(r.dataset.new)));
  const fixed = await page.$$eval("#history-chart svg rect[data-fixed]", (rs) => rs.map((r) => Number(r.dataset.fixed)));
  assert.deepEqual(added, [0, 1, 0]);
  assert.deepEqual(fixed, [0, 0, 1]);
  assert.match(await page.textContent("#history-source"), /findings store .*findings\.sqlite/);
});

test("the planted finding's life: new in run 2, fixed in run 3, with its culprit", async () => {
  const signature = runs[1].findings[0].signature;
  const row = page.locator(`#store-findings tr[data-signature="${signature}"]`);
  assert.equal(await row.count(), 1);
  assert.equal(await row.getAttribute("data-status"), "fixed");
  assert.equal(await row.locator("td.life").getAttribute("data-life"), "2:new,3:fixed");
  const text = await row.textContent();
  assert.ok(text.includes("#2 store002"), "first seen in run 2 at its commit: " + text);
  assert.ok(text.includes("fixed in #3 store003"), "fixed by run 3: " + text);
  assert.ok(text.includes(runs[1].findings[0].calls.toLocaleString("en-US")), "its calls: " + text);
  assert.equal(await row.locator("[data-culprit]").getAttribute("data-culprit"), "store002");
  assert.equal(await row.locator("[data-fixed-by]").textContent(), "store003");
});

test("the store page makes no network request and logs no console error", () => {
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(requests.filter((u) => u !== pageUrl && !u.startsWith("data:")), []);
});
