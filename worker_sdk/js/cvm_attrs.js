'use strict';
// The contract's attribute syntax (docs/contract.md, "Attributes") for JavaScript workers: the
// attribute object of a call is an object of strings in the CVM graph-file syntax. Every
// malformed text is a LogicError with the contract's rule id, as the reference raises it.

const { LogicError } = require('./cvmcheck_worker');

const SPACE = /^[ \t\n\r]+|[ \t\n\r]+$/g;
const DECIMAL = /^[+-]?[0-9]+$/;
const INT32_MIN = -(2 ** 31), INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n), INT64_MAX = 2n ** 63n - 1n;

function malformed(what, text) {
  return new LogicError(`malformed ${what} '${text}'`, 'global.attr_malformed');
}

// The attributes as {name: text} with defaults filled in; `schema` maps each allowed name to its
// default text (null: required).
function attrsOf(call, schema) {
  if (call.attrs === null) {
    throw new LogicError(`attributes are not an object of strings: ${call.attrsJson}`,
                         /^\s*\{/.test(call.attrsJson) ? 'global.attr_not_string'
                                                       : 'global.attrs_not_object');
  }
  for (const key of Object.keys(call.attrs)) {
    if (!(key in schema)) throw new LogicError(`unknown attribute '${key}'`, 'global.attr_unknown');
  }
  const out = {};
  for (const [key, def] of Object.entries(schema)) {
    if (!(key in call.attrs) && def === null) {
      throw new LogicError(`missing attribute '${key}'`, 'global.attr_missing');
    }
    out[key] = key in call.attrs ? call.attrs[key] : def;
  }
  return out;
}

// An int (BigInt), within [lo, hi] (int32 by default).
function parseBigInt(text, lo = BigInt(INT32_MIN), hi = BigInt(INT32_MAX), what = 'int') {
  const body = text.replace(SPACE, '');
  if (!DECIMAL.test(body)) throw malformed(what, text);
  const value = BigInt(body);
  if (value < lo || value > hi) throw malformed(what, text);
  return value;
}

function parseInt32(text, what = 'int') {
  return Number(parseBigInt(text, BigInt(INT32_MIN), BigInt(INT32_MAX), what));
}

function parseBool(text) {
  const body = text.replace(SPACE, '');
  if (body === 'true' || body === 'True' || body === '1') return true;
  if (body === 'false' || body === 'False' || body === '0') return false;
  throw malformed('bool', text);
}

// (1, 2), [1,2], (1,), (), [] or a bare 3; int64 entries (BigInt); one trailing comma allowed.
function parseTuple(text) {
  const body = text.replace(SPACE, '');
  const entry = (t) => parseBigInt(t, INT64_MIN, INT64_MAX, 'tuple entry');
  if (!body) throw malformed('tuple', text);
  if (body[0] !== '(' && body[0] !== '[') return [entry(body)];
  if (body.length < 2 || body[body.length - 1] !== (body[0] === '(' ? ')' : ']')) {
    throw malformed('tuple', text);
  }
  const inner = body.slice(1, -1).replace(SPACE, '');
  if (!inner) return [];
  const items = inner.split(',');
  if (items.length > 1 && items[items.length - 1].replace(SPACE, '') === '') items.pop();
  return items.map(entry);
}

// An int or None (null).
function parseOptionalInt(text) {
  return text.replace(SPACE, '') === 'None' ? null : parseInt32(text);
}

function parseChoice(text, choices) {
  if (!choices.includes(text)) throw malformed(`value (one of ${choices.join(', ')})`, text);
  return text;
}

module.exports = {
  INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX,
  attrsOf, parseBigInt, parseInt32, parseBool, parseTuple, parseOptionalInt, parseChoice,
};
