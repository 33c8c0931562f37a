'use strict';
// Where the adapters' npm packages are: adapters/js-deps/node_modules, installed by
// adapters/js-deps/install.sh (or the folder named by CVMCHECK_JS_DEPS). require_dep(name) loads
// one from there; missing() says which of the named packages are absent.
const fs = require('fs');
const path = require('path');

const modules = path.join(process.env.CVMCHECK_JS_DEPS || __dirname, 'node_modules');

function requireDep(name) {
  return require(path.join(modules, name));
}

function missing(names) {
  return names.filter((n) => !fs.existsSync(path.join(modules, n, 'package.json')));
}

function version(name) {
  return JSON.parse(fs.readFileSync(path.join(modules, name, 'package.json'), 'utf8')).version;
}

module.exports = { modules, requireDep, missing, version };
