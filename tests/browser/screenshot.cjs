// node tests/browser/screenshot.cjs PAGE OUT.png: the top of a report page in headless
// chromium (ci/report-screenshot.sh).
"use strict";
const path = require("node:path");
const { pathToFileURL } = require("node:url");
const { chromium } = require("playwright-core");

(async () => {
  const [page, out] = process.argv.slice(2);
  const browser = await chromium.launch({
    executablePath: process.env.CVMCHECK_CHROMIUM || "/usr/lib/chromium/chromium",
    headless: true, args: ["--no-sandbox"] });
  const tab = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await tab.goto(pathToFileURL(path.resolve(page)).href, { waitUntil: "load" });
  await tab.waitForSelector("#matrix-table");
  await tab.screenshot({ path: out, fullPage: false });
  await browser.close();
})().catch((e) => { console.error(e); process.exit(1); });
