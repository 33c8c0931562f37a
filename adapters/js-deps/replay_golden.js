#!/usr/bin/env node
'use strict';
// Replays golden/ (or case directories) through any protocol-v1 worker with Node.js alone, keeping
// each case's outcome and the worker's message, for adapters/js-deps/classify.js. The verdict of
// record is `cvmcheck golden verify` (the adapters' ci_test.sh); this is the same comparison
// (class, output count, shapes, values; precisions unless the worker's hello sets
// FLAG_NO_PRECISION) with the messages kept, and the worker under the harness's default
// --worker-memory (a 4 GiB address-space limit).
//
//   node adapters/js-deps/replay_golden.js --worker "node adapters/onnxruntime/worker.js" \
//        [--golden golden] [--case DIR ...] [--timeout 20] --json out.json
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const cw = require('../../worker_sdk/js/cvmcheck_worker');

function parseArgs(argv) {
  const args = { golden: path.join(__dirname, '..', '..', 'golden'), cases: [], timeout: 20, json: null, worker: null };
  for (let i = 2; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--worker') args.worker = argv[++i];
    else if (a === '--golden') args.golden = argv[++i];
    else if (a === '--case') args.cases.push(argv[++i]);
    else if (a === '--timeout') args.timeout = Number(argv[++i]);
    else if (a === '--json') args.json = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.worker) throw new Error('--worker is required');
  return args;
}

// A .npy file as a tensor; null when it is not int8/int32 little-endian C-order data.
function readNpy(file) {
  const b = fs.readFileSync(file);
  if (b.length < 10 || b.toString('latin1', 0, 6) !== '\x93NUMPY') return null;
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = b.toString('latin1', start, start + hlen);
  const descr = /'descr':\s*'([^']*)'/.exec(header);
  const order = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !order || !shape || order[1] !== 'False') return null;
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const dtype = { '|i1': 'int8', '<i4': 'int32', 'i1': 'int8' }[descr[1]];
  if (!dtype) return null;
  const n = dims.reduce((x, y) => x * y, 1);
  const width = dtype === 'int8' ? 1 : 4;
  const offset = start + hlen;
  if (b.length - offset !== n * width) return null;
  const bytes = new Uint8Array(n * width);
  bytes.set(b.subarray(offset));
  return { dtype, shape: dims, data: dtype === 'int8' ? new Int8Array(bytes.buffer) : new Int32Array(bytes.buffer) };
}

class Worker {
  constructor(command, timeout) { this.command = command; this.timeout = timeout; this.id = 1n; }

  async start() {
    this.proc = spawn('/bin/sh', ['-c', `ulimit -v ${4 * 1024 * 1024}; exec ${this.command}`], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.proc.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve(signal || code)));
    this.frames = new cw.FrameReader(this.proc.stdout);
    this.proc.stdin.write(cw.encodeHello('', 0, []));
    const hello = cw.decodeHello(await this.frames.next());
    this.name = hello.name;
    this.flags = hello.flags;
    this.ops = new Set(hello.ops);
  }

  stop() { try { this.proc.kill('SIGKILL'); } catch (e) { /* gone */ } }

  async call(op, attrs, inputs) {
    const id = this.id++;
    this.proc.stdin.write(cw.encodeCall(id, op, attrs, inputs));
    let timer;
    const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve('hang'), this.timeout * 1000); });
    const reply = this.frames.next().then((p) => (p === null ? 'crash' : cw.decodeReply(p)), () => 'crash');
    const got = await Promise.race([reply, timeout, this.exited.then(() => 'crash')]);
    clearTimeout(timer);
    return got;
  }
}

function attrsForWire(attrs) {
  if (attrs && typeof attrs === 'object' && !Array.isArray(attrs) &&
      Object.values(attrs).every((v) => typeof v === 'string')) return attrs;
  return { json: JSON.stringify(attrs) };
}

function compare(expect, caseDir, reply, comparePrecision) {
  if (reply.outcome !== expect.outcome) return `outcome ${reply.outcome}, expected ${expect.outcome}`;
  if (expect.outcome !== 'ok') return null;
  if (reply.outputs.length !== expect.outputs.length) {
    return `${reply.outputs.length} outputs, expected ${expect.outputs.length}`;
  }
  for (let k = 0; k < reply.outputs.length; ++k) {
    const got = reply.outputs[k];
    const want = readNpy(path.join(caseDir, expect.outputs[k].file));
    if (got.shape.join(',') !== want.shape.join(',')) return `output ${k}: shape [${got.shape}], expected [${want.shape}]`;
    let diff = 0, first = -1;
    for (let i = 0; i < want.data.length; ++i) {
      if (got.data[i] !== want.data[i]) { if (first < 0) first = i; ++diff; }
    }
    if (diff) {
      return `output ${k}: value at flat index ${first}: ${got.data[first]}, expected ${want.data[first]} (${diff} of ${want.data.length} differ)`;
    }
    if (comparePrecision && got.precision !== expect.outputs[k].precision) {
      return `output ${k}: precision ${got.precision}, expected ${expect.outputs[k].precision}`;
    }
  }
  return null;
}

async function main() {
  const args = parseArgs(process.argv);
  let dirs;
  if (args.cases.length) {
    dirs = args.cases;
  } else {
    const manifest = JSON.parse(fs.readFileSync(path.join(args.golden, 'MANIFEST.json'), 'utf8'));
    dirs = manifest.cases.map((c) => path.join(args.golden, c.dir));
  }
  const worker = new Worker(args.worker, args.timeout);
  await worker.start();
  const results = [];
  const counts = {};
  const start = Date.now();
  for (const dir of dirs) {
    const spec = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8'));
    const res = { op: spec.op, name: path.basename(dir), dir, attrs: spec.attrs, expect: spec.expect.outcome, rule: spec.expect.rule || '' };
    if (!worker.ops.has(spec.op)) {
      res.status = 'skipped';
    } else {
      const inputs = spec.inputs.map((i) => {
        const t = readNpy(path.join(dir, i.file));
        return t && cw.tensor(t.dtype, t.shape, t.data, i.precision);
      });
      let reply;
      if (inputs.some((t) => t === null)) {
        reply = { outcome: 'logic_error', message: 'an input is not an int8/int32 .npy (the harness refuses it)', outputs: [] };
      } else {
        reply = await worker.call(spec.op, attrsForWire(spec.attrs || {}), inputs);
      }
      if (reply === 'hang' || reply === 'crash') {
        res.outcome = reply;
        res.detail = reply === 'hang' ? `no reply within ${args.timeout} s` : `worker died (${await worker.exited})`;
        worker.stop();
        await worker.start();
      } else {
        res.outcome = reply.outcome;
        if (reply.message) res.message = reply.message.slice(0, 400);
        res.detail = compare(spec.expect, dir, reply, !(worker.flags & cw.FLAG_NO_PRECISION));
        if (reply.outcome === 'ok') res.shapes = reply.outputs.map((t) => t.shape);
      }
      res.status = res.detail ? 'fail' : 'pass';
    }
    counts[res.status] = (counts[res.status] || 0) + 1;
    results.push(res);
  }
  worker.stop();
  const seconds = (Date.now() - start) / 1000;
  console.log(`${worker.name}: ${JSON.stringify(counts)} in ${seconds.toFixed(1)} s`);
  if (args.json) fs.writeFileSync(args.json, JSON.stringify({ worker: worker.name, seconds, results }, null, 1));
  process.exit(0);
}

main().catch((e) => { console.error(e); process.exit(2); });
