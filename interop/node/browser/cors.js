'use strict';
// CORS and the Host check (#20) in headless Chromium. A page served from
// another loopback port calls jetrpc serve (--mcp, --allow-origin naming
// that page's origin): fetch (a call, a batch, an SSE stream read from the
// body), WebSocket and the MCP handshake all work, and error statuses are
// readable. The same page from a port not allowed: the browser blocks
// every one of them, the server answered 403 (seen through the DevTools
// protocol, which reports the status of a blocked response) and no method
// ran (jetrpc_calls_total of --admin's /metrics). Host: the browser maps
// evil.example and rpc.test to 127.0.0.1 (--host-resolver-rules, DNS
// rebinding without a DNS server): evil.example gets 403, the listed
// rpc.test, localhost and 127.0.0.1 pass, and [::1] from Node.
//
// Run: JETRPC_BIN=/path/to/jetrpc node --test browser/cors.js

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { jetrpc, browser } = require('./lib');

const MAX_MESSAGE = 4096;

// pageServer serves an empty page on a loopback port: the page's origin.
function pageServer() {
  const s = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end('<!doctype html><title>a page of another origin</title>');
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve({ s, origin: `http://127.0.0.1:${s.address().port}` })));
}

// recorder collects the status of every response the page got, blocked or
// not, from the DevTools protocol.
async function recorder(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const reqs = new Map();
  const seen = [];
  cdp.on('Network.requestWillBeSent', (e) => reqs.set(e.requestId, { method: e.request.method, url: e.request.url }));
  cdp.on('Network.responseReceivedExtraInfo', (e) => seen.push({ id: e.requestId, status: e.statusCode }));
  cdp.on('Network.webSocketCreated', (e) => reqs.set(e.requestId, { method: 'WS', url: e.url }));
  cdp.on('Network.webSocketHandshakeResponseReceived', (e) => seen.push({ id: e.requestId, status: e.response.status }));
  cdp.on('Network.webSocketFrameError', (e) => { // a refused handshake ends here
    const m = /response code: (\d+)/.exec(e.errorMessage);
    if (m) seen.push({ id: e.requestId, status: Number(m[1]) });
  });
  // statuses of the responses to url (a prefix), as "METHOD STATUS"
  const statuses = (url) => seen.map((s) => ({ ...reqs.get(s.id), status: s.status }))
    .filter((r) => r.url && r.url.startsWith(url)).map((r) => `${r.method} ${r.status}`);
  return {
    clear: () => (seen.length = 0),
    statuses,
    // until waits until ok() holds (5 s at most): the protocol's events
    // reach this process after the page's promise settles.
    until: async (ok) => {
      for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
    },
  };
}

async function callsTotal(admin) {
  const text = await (await fetch(`http://${admin}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith('jetrpc_calls_total{')).reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

// In the page: each helper returns what the page could see, or the error.
const inPage = {
  async call({ url, body, headers = { 'Content-Type': 'application/json' } }) {
    try {
      const r = await fetch(url, { method: 'POST', headers, body });
      return { status: r.status, text: await r.text(), session: r.headers.get('Mcp-Session-Id') };
    } catch (e) {
      return { error: String(e) };
    }
  },
  async sse({ url, body }) {
    try {
      const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' }, body });
      const reader = r.body.getReader();
      const dec = new TextDecoder();
      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += dec.decode(value, { stream: true });
      }
      return { status: r.status, type: r.headers.get('Content-Type'),
        events: text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5))) };
    } catch (e) {
      return { error: String(e) };
    }
  },
  ws({ url, body }) {
    return new Promise((resolve) => {
      const ws = new WebSocket(url);
      const got = [];
      let opened = false;
      ws.onopen = () => { opened = true; ws.send(body); };
      ws.onmessage = (ev) => {
        got.push(JSON.parse(ev.data));
        if (got.length === 4) { ws.close(); resolve({ opened, got }); }
      };
      ws.onclose = (ev) => resolve({ opened, got, code: ev.code });
    });
  },
};

const SUBTRACT = '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}';
const BATCH = '[{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1},{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":2}]';
const SUBSCRIBE = '{"jsonrpc":"2.0","method":"subscribe","params":[3],"id":7}';
const MCP_VERSION = '2025-06-18';
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: MCP_VERSION, capabilities: {}, clientInfo: { name: 'browser-test', version: '1' } } });
const MCP_ACCEPT = 'application/json, text/event-stream';

// mcpResult reads an MCP answer: JSON, or the last data: event of a stream.
function mcpResult(text) {
  const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5));
  return JSON.parse(data.length ? data[data.length - 1] : text);
}

describe('CORS and Host in Chromium', { timeout: 180_000 }, () => {
  let srv, b, allowed, foreign, base, admin;
  before(async () => {
    [allowed, foreign] = await Promise.all([pageServer(), pageServer()]);
    srv = await jetrpc(['serve', '--tcp', '', '--http', '127.0.0.1:0', '--mcp', '--admin', '127.0.0.1:0',
      '--allow-origin', allowed.origin, '--allow-host', 'rpc.test', '--max-message', String(MAX_MESSAGE)], ['http', 'admin']);
    base = `http://${srv.addr.http}`;
    admin = srv.addr.admin;
    b = await browser({ args: ['--host-resolver-rules=MAP evil.example 127.0.0.1, MAP rpc.test 127.0.0.1'] });
  });
  after(async () => {
    await b?.close();
    allowed?.s.close();
    foreign?.s.close();
    if (srv) assert.deepEqual(await srv.stop(), { code: 0, signal: null });
  });

  const open = async (origin) => {
    const page = await b.newPage();
    page.setDefaultTimeout(10_000);
    const rec = await recorder(page);
    await page.goto(origin + '/');
    return { page, rec };
  };

  it('an allowed origin: fetch (call, batch, SSE), WebSocket, MCP', async () => {
    const { page, rec } = await open(allowed.origin);
    let r = await page.evaluate(inPage.call, { url: base + '/', body: SUBTRACT });
    assert.equal(r.status, 200, JSON.stringify(r));
    assert.equal(JSON.parse(r.text).result, 19);
    await rec.until(() => rec.statuses(base + '/').length >= 2);
    assert.deepEqual(rec.statuses(base + '/'), ['OPTIONS 204', 'POST 200'], 'a JSON POST is preflighted');

    r = await page.evaluate(inPage.call, { url: base + '/', body: BATCH });
    assert.deepEqual(JSON.parse(r.text).map((m) => m.result).sort((x, y) => x - y), [3, 19]);

    r = await page.evaluate(inPage.sse, { url: base + '/', body: SUBSCRIBE });
    assert.equal(r.status, 200, JSON.stringify(r));
    assert.match(r.type, /^text\/event-stream/);
    assert.deepEqual(r.events.map((e) => e.method ?? e.result), ['subscription', 'subscription', 'subscription', 3]);

    r = await page.evaluate(inPage.ws, { url: base.replace('http', 'ws') + '/ws', body: SUBSCRIBE });
    assert.ok(r.opened, JSON.stringify(r));
    assert.deepEqual(r.got.map((m) => m.method ?? m.result), ['subscription', 'subscription', 'subscription', 3]);

    // MCP: the session id must be exposed; the requests that carry it and
    // the protocol version need a preflight.
    const mcp = base + '/mcp';
    rec.clear();
    r = await page.evaluate(inPage.call, { url: mcp, body: INITIALIZE, headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT } });
    assert.equal(r.status, 200, JSON.stringify(r));
    assert.ok(r.session, 'Mcp-Session-Id is not exposed to the page');
    assert.equal(mcpResult(r.text).result.protocolVersion, MCP_VERSION);
    const headers = { 'Content-Type': 'application/json', Accept: MCP_ACCEPT, 'Mcp-Session-Id': r.session, 'Mcp-Protocol-Version': MCP_VERSION };
    r = await page.evaluate(inPage.call, { url: mcp, headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' });
    assert.equal(r.status, 202, JSON.stringify(r));
    r = await page.evaluate(inPage.call, { url: mcp, headers, body: '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' });
    assert.equal(r.status, 200, JSON.stringify(r));
    // The demo tools come first; the conformance suite's fixtures (#18) follow.
    assert.deepEqual(mcpResult(r.text).result.tools.map((t) => t.name).slice(0, 3), ['echo', 'add', 'countdown']);
    r = await page.evaluate(inPage.call, { url: mcp, headers,
      body: '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}' });
    assert.match(mcpResult(r.text).result.content[0].text, /\b5\b/);
    await rec.until(() => rec.statuses(mcp).includes('OPTIONS 204'));
    const seen = rec.statuses(mcp);
    assert.ok(seen.includes('OPTIONS 204'), `no preflight for the session's requests: ${seen}`);
    r = await page.evaluate(async ({ url, headers }) => (await fetch(url, { method: 'DELETE', headers })).status, { url: mcp, headers });
    assert.ok(r === 200 || r === 204, `DELETE /mcp: ${r}`);
    await page.close();
  });

  it('errors carry the CORS headers: the page reads 413, 404 (unknown MCP session), 405', async () => {
    const { page } = await open(allowed.origin);
    let r = await page.evaluate(inPage.call, { url: base + '/', body: JSON.stringify({ jsonrpc: '2.0', method: 'echo', params: ['x'.repeat(MAX_MESSAGE)], id: 1 }) });
    assert.equal(r.status, 413, JSON.stringify(r));
    r = await page.evaluate(inPage.call, { url: base + '/mcp', body: '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
      headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT, 'Mcp-Session-Id': 'nobody.session', 'Mcp-Protocol-Version': MCP_VERSION } });
    assert.equal(r.status, 404, JSON.stringify(r));
    r = await page.evaluate(async (url) => (await fetch(url)).status, base + '/');
    assert.equal(r, 405);
    await page.close();
  });

  it('a foreign origin: the browser blocks everything, the server answered 403, no method ran', async () => {
    const { page, rec } = await open(foreign.origin);
    const calls = await callsTotal(admin);
    const blocked = async (what, fn, arg, url, want) => {
      rec.clear();
      const r = await page.evaluate(fn, arg);
      assert.ok(r.error || (r.opened === false && r.got.length === 0), `${what}: not blocked: ${JSON.stringify(r)}`);
      await rec.until(() => rec.statuses(url).length > 0);
      assert.deepEqual(rec.statuses(url), [want], `${what}: what the server answered`);
    };
    await blocked('a call', inPage.call, { url: base + '/', body: SUBTRACT }, base + '/', 'OPTIONS 403');
    await blocked('a batch', inPage.call, { url: base + '/', body: BATCH }, base + '/', 'OPTIONS 403');
    await blocked('a text/plain POST (no preflight)', inPage.call,
      { url: base + '/', body: SUBTRACT, headers: { 'Content-Type': 'text/plain' } }, base + '/', 'POST 403');
    await blocked('an SSE stream', inPage.sse, { url: base + '/', body: SUBSCRIBE }, base + '/', 'OPTIONS 403');
    await blocked('a WebSocket', inPage.ws, { url: base.replace('http', 'ws') + '/ws', body: SUBSCRIBE }, base.replace('http', 'ws') + '/ws', 'WS 403');
    await blocked('MCP initialize', inPage.call,
      { url: base + '/mcp', body: INITIALIZE, headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT } }, base + '/mcp', 'OPTIONS 403');
    await blocked('an MCP text/plain POST', inPage.call,
      { url: base + '/mcp', body: INITIALIZE, headers: { 'Content-Type': 'text/plain' } }, base + '/mcp', 'POST 403');
    assert.equal(await callsTotal(admin), calls, 'a method ran for a foreign origin');
    await page.close();
  });

  it('Host: evil.example gets 403; localhost, 127.0.0.1, [::1] and the listed host pass', async () => {
    const page = await b.newPage();
    const port = srv.addr.http.split(':').pop();
    for (const [host, status] of [['evil.example', 403], ['rpc.test', 200], ['localhost', 200], ['127.0.0.1', 200]]) {
      const resp = await page.goto(`http://${host}:${port}/healthz`);
      assert.equal(resp.status(), status, `Host ${host}:${port}`);
      if (status === 403) assert.equal((await resp.text()).trim(), 'invalid host specified');
    }
    // A page served under the rebound name cannot call either (same-origin for the browser).
    await page.goto(`http://evil.example:${port}/healthz`);
    const r = await page.evaluate(async ({ url, body }) => (await fetch(url, { method: 'POST', body })).status, { url: `http://evil.example:${port}/`, body: SUBTRACT });
    assert.equal(r, 403);
    await page.close();
    // [::1] cannot be mapped by the resolver rules: Node sends that Host.
    for (const [host, status] of [[`[::1]:${port}`, 200], [`evil.example:${port}`, 403], [`RPC.test:${port}`, 200]]) {
      const got = await new Promise((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { Host: host, 'Content-Type': 'application/json' } },
          (res) => { res.resume(); resolve(res.statusCode); });
        req.on('error', reject);
        req.end(SUBTRACT);
      });
      assert.equal(got, status, `Host ${host}`);
    }
  });
});
