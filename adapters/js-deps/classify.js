#!/usr/bin/env node
'use strict';
// Which known difference explains each golden case on which a JavaScript adapter's runtime
// (adapters/onnxruntime, adapters/tfjs) differs from the contract.
//
// A front end, not a rule set: the rules are the adapter's known-differences.txt, each entry a
// selector with conditions on the call and a reason that starts with its rule id in brackets and
// its kind (a deliberate difference of the contract, a limit of the runtime, or a bug of the
// runtime, named in docs/conformance/<name>.md with a repro): the list the campaign applies.
// `cvmcheck golden verify` applies it to golden/ exactly as the campaign does; this script runs
// it (or reads its --json) and prints the per-operator table, the count per rule id, and every
// case no entry explains (exit status 1).
//
//   node adapters/js-deps/classify.js --adapter onnxruntime|tfjs [--cvmcheck build/bin/cvmcheck]
//        [--golden golden] [--results R.json] [--markdown]
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const ROOT = path.join(__dirname, '..', '..');

function parseArgs(argv) {
  const args = { cvmcheck: path.join(ROOT, 'build', 'bin', 'cvmcheck'), golden: path.join(ROOT, 'golden'),
    adapter: null, results: null, markdown: false };
  for (let i = 2; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--markdown') args.markdown = true;
    else if (['--adapter', '--cvmcheck', '--golden', '--results'].includes(a) && i + 1 < argv.length) {
      args[a.slice(2)] = argv[++i];
    } else {
      throw new Error(`unknown argument ${a} (usage: classify.js --adapter NAME [--cvmcheck BIN] ` +
                      '[--golden DIR] [--results R.json] [--markdown])');
    }
  }
  if (!['onnxruntime', 'tfjs'].includes(args.adapter)) throw new Error('--adapter onnxruntime|tfjs is required');
  return args;
}

function knownDifferences(adapter) {
  return path.join(ROOT, 'adapters', adapter, 'known-differences.txt');
}

// `cvmcheck golden verify` of the adapter's worker with its known differences, as --json gives it.
function runVerify(args) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cvmcheck-classify-'));
  try {
    const json = path.join(dir, 'verify.json');
    const worker = `node ${path.join(ROOT, 'adapters', args.adapter, 'worker.js')}`;
    // It exits 1 when a case is unexplained; that is this script's answer too.
    const run = spawnSync(args.cvmcheck, ['golden', 'verify', args.golden, '--call-timeout', '60',
      '--backend-def', `${args.adapter}=${worker}`, '--backend', args.adapter,
      '--xfail-for', `${args.adapter}=${knownDifferences(args.adapter)}`, '--json', json],
    { stdio: ['ignore', 'ignore', 'inherit'] });
    if (run.error) throw run.error;
    return JSON.parse(fs.readFileSync(json, 'utf8'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// 'FILE:LINE: [rule-id] kind: reason' -> { id, reason: 'kind: reason' }.
function ruleOf(expectation) {
  const reason = expectation.replace(/^.*?:\d+: /, '');
  const tag = /^\[([A-Za-z0-9-]+)\]\s*(.*)$/.exec(reason);
  return tag ? { id: tag[1], reason: tag[2] } : { id: 'untagged', reason };
}

function printTables(name, result, perRule, markdown) {
  const line = (cells) => console.log(markdown ? `| ${cells.join(' | ')} |`
    : cells.map((c, i) => String(c).padStart(i ? 9 : 22)).join(''));
  console.log(name);
  line(['operator', 'cases', 'pass', 'expected', 'unexpected', 'skipped']);
  if (markdown) console.log('|---|---:|---:|---:|---:|---:|');
  const total = { cases: 0, pass: 0, expected: 0, unexpected: 0, skipped: 0 };
  for (const [op, n] of Object.entries(result.per_op)) {
    const row = { pass: (n.pass || 0) + (n.xpass || 0), expected: n.xfail || 0,
      unexpected: (n.fail || 0) + (n.corrupt || 0), skipped: n.skipped || 0 };
    row.cases = row.pass + row.expected + row.unexpected + row.skipped;
    line([op, row.cases, row.pass, row.expected, row.unexpected, row.skipped]);
    for (const k of Object.keys(total)) total[k] += row[k];
  }
  line(['total', total.cases, total.pass, total.expected, total.unexpected, total.skipped]);
  console.log('');
  for (const [id, { count, reason }] of [...perRule].sort((a, b) => b[1].count - a[1].count)) {
    console.log(markdown ? `| ${id} | ${count} | ${reason} |` : `${String(count).padStart(5)} [${id}] ${reason}`);
  }
}

function main() {
  const args = parseArgs(process.argv);
  const report = args.results ? JSON.parse(fs.readFileSync(args.results, 'utf8')) : runVerify(args);
  const [[name, result]] = Object.entries(report.backends);
  const perRule = new Map();
  const unexplained = [];
  for (const c of result.not_passing) {
    if (c.status === 'xpass') continue;  // listed, agrees: counted as a pass
    if (c.status !== 'xfail') {
      unexplained.push(c);
      continue;
    }
    const { id, reason } = ruleOf(c.expectation);
    if (!perRule.has(id)) perRule.set(id, { count: 0, reason });
    perRule.get(id).count += 1;
  }
  printTables(name, result, perRule, args.markdown);
  for (const c of unexplained) {
    console.log(`UNEXPLAINED ${c.op}/${c.case}: ${c.status}: ${String(c.detail).slice(0, 300)}`);
  }
  process.exit(unexplained.length ? 1 : 0);
}

try {
  main();
} catch (e) {
  console.error(`classify.js: ${e.message}`);
  process.exit(2);
}
