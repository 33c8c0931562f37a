// The browser tests' shared set-up: Debian's chromium, headless, driven by playwright-core, one
// page with every console error and network request recorded.
"use strict";
const { chromium } = require("playwright-core");

const executablePath = process.env.CVMCHECK_CHROMIUM || "/usr/lib/chromium/chromium";

// Opens `url`; returns { browser, page, consoleErrors, requests }.
async function openPage(url) {
  const browser = await chromium.launch({ executablePath, headless: true, args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const consoleErrors = [], requests = [];
  page.setDefaultTimeout(5000);
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(url, { waitUntil: "load" });
  return { browser, page, consoleErrors, requests };
}

module.exports = { openPage };
