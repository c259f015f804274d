'use strict';
// OpenRPC (#14): the jetrpc binary's rpc.discover document (and GET
// /openrpc.json, the same document) validates against the OpenRPC
// meta-schema of @open-rpc/meta-schema, with ajv; and every example
// document of @open-rpc/examples goes through "jetrpc gen", the generated
// packages compiling and vetting clean (go vet, in a module of their own
// that replaces jetrpc with this repository).
//
// Run: JETRPC_BIN=/path/to/jetrpc node --test openrpc.test.js (needs go on PATH)

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const Ajv = require('ajv');
const jsonSchemaMeta = require('@json-schema-tools/meta-schema');
const { openrpcDocument } = require('@open-rpc/meta-schema');
const { startServer, stopServer } = require('./server');

const STEP_TIMEOUT_MS = 10_000;
const VET_TIMEOUT_MS = 300_000;
const EXAMPLES = path.join(path.dirname(require.resolve('@open-rpc/examples/package.json')), 'build', 'service-descriptions');
const REPO = path.resolve(__dirname, '..', '..');

// validator compiles the OpenRPC meta-schema; its JSON Schema part refers
// to https://meta.json-schema.tools, which @json-schema-tools/meta-schema
// holds (as @open-rpc/schema-utils-js sets it up).
function validator() {
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  // a server url may hold ${variables} (OpenRPC's server variables)
  ajv.addFormat('uri', (s) => URL.canParse(s.replace(/\$\{[^}]*\}/g, '0')));
  ajv.addFormat('uri-reference', () => true);
  ajv.addFormat('email', (s) => /^[^@\s]+@[^@\s]+$/.test(s));
  ajv.addFormat('regex', (s) => {
    try {
      new RegExp(s, 'u');
      return true;
    } catch {
      return false;
    }
  });
  ajv.addSchema(jsonSchemaMeta.default ?? jsonSchemaMeta, 'https://meta.json-schema.tools');
  return ajv.compile(openrpcDocument);
}

function assertValid(validate, doc, what) {
  assert.ok(validate(doc), `${what} is not a valid OpenRPC document:\n${JSON.stringify(validate.errors, null, 1)}`);
}

async function post(base, body) {
  const res = await fetch(base, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
  });
  assert.equal(res.status, 200);
  return res.json();
}

describe('the demo server describes itself', () => {
  let server, base;
  const validate = validator();
  before(async () => {
    server = await startServer(['--tcp', '', '--http', '127.0.0.1:0'], 'http');
    base = `http://${server.host}:${server.port}`;
  });
  after(async () => {
    const { code } = await stopServer(server);
    assert.equal(code, 0, `jetrpc serve exited ${code}`);
  });

  test('rpc.discover validates against the meta-schema', async () => {
    const res = await post(base + '/', { jsonrpc: '2.0', method: 'rpc.discover', id: 1 });
    assert.equal(res.error, undefined);
    const doc = res.result;
    assertValid(validate, doc, 'rpc.discover');
    assert.equal(doc.openrpc, '1.3.2');
    const names = doc.methods.map((m) => m.name);
    for (const want of ['subtract', 'sum', 'update', 'notify_hello', 'notify_sum', 'get_data', 'echo', 'sleep', 'fail', 'panic']) {
      assert.ok(names.includes(want), `${want} is not described`);
    }
    const subtract = doc.methods.find((m) => m.name === 'subtract');
    assert.equal(subtract.paramStructure, 'either');
    assert.deepEqual(subtract.params.map((p) => p.name), ['minuend', 'subtrahend']);
    assert.ok(subtract.summary && subtract.errors.length > 0 && subtract.examples.length > 0);
  });

  test('GET /openrpc.json is the same document', async () => {
    const res = await fetch(base + '/openrpc.json', { signal: AbortSignal.timeout(STEP_TIMEOUT_MS) });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^application\/json/);
    const doc = await res.json();
    const rpc = await post(base + '/', { jsonrpc: '2.0', method: 'rpc.discover', id: 2 });
    assert.deepEqual(doc, rpc.result);
    assertValid(validate, doc, 'GET /openrpc.json');
  });

  test('the validator rejects a broken document', () => {
    assert.equal(validate({ openrpc: '1.3.2', info: { title: 't', version: '1' }, methods: [{ name: 'm', params: [{ name: 'p', schema: { type: 'strin' } }] }] }), false);
    assert.equal(validate({ openrpc: '1.3.2', info: { title: 't' }, methods: [] }), false);
  });
});

describe('jetrpc gen on every @open-rpc/examples document', () => {
  const files = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith('.json')).sort();
  const mod = fs.mkdtempSync(path.join(os.tmpdir(), 'jetrpc-gen-examples-'));
  after(() => fs.rmSync(mod, { recursive: true, force: true }));

  test('the package holds example documents', () => assert.ok(files.length >= 6, `only ${files.length}`));

  const validate = validator();
  for (const f of files) {
    test(`gen ${f}`, () => {
      const file = path.join(EXAMPLES, f);
      assertValid(validate, JSON.parse(fs.readFileSync(file, 'utf8')), f);
      const pkg = f.replace(/-openrpc\.json$|\.json$/, '').replace(/[^a-z0-9]/g, '');
      execFileSync(process.env.JETRPC_BIN, ['gen', '--out', path.join(mod, pkg), file], { timeout: STEP_TIMEOUT_MS, stdio: 'pipe' });
      assert.ok(fs.existsSync(path.join(mod, pkg, 'openrpc_gen.go')));
    });
  }

  test('the generated packages compile and vet', () => {
    fs.writeFileSync(path.join(mod, 'go.mod'),
      `module gentest\n\ngo 1.26.0\n\nrequire github.com/jetrpc/jetrpc v0.0.0\n\nreplace github.com/jetrpc/jetrpc => ${REPO}\n`);
    fs.copyFileSync(path.join(REPO, 'go.sum'), path.join(mod, 'go.sum'));
    const env = { ...process.env, GOFLAGS: '-mod=mod' };
    try {
      execFileSync('go', ['vet', './...'], { cwd: mod, env, timeout: VET_TIMEOUT_MS, stdio: 'pipe' });
    } catch (err) {
      assert.fail(`go vet of the generated packages failed:\n${err.stdout}${err.stderr}`);
    }
    const listed = execFileSync('go', ['list', './...'], { cwd: mod, env, timeout: VET_TIMEOUT_MS }).toString().trim().split('\n');
    assert.equal(listed.length, files.length);
  });
});
