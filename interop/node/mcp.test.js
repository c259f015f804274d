'use strict';
// The official MCP TypeScript SDK's client (@modelcontextprotocol/sdk)
// against "jetrpc serve --mcp": Streamable HTTP at /mcp, and stdio with
// --mcp --stdio. Its result schemas are strict (zod): a result with a
// member of another revision fails them.

const test = require('node:test');
const assert = require('node:assert/strict');

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { LATEST_PROTOCOL_VERSION } = require('@modelcontextprotocol/sdk/types.js');

const { startServer, stopServer } = require('./server.js');

const STEP_MS = 10_000; // every step has its bound

function newClient() {
  return new Client({ name: 'jetrpc-interop', version: '1.0.0' }, { capabilities: {} });
}

// counting records the requests a transport makes and the responses its
// client receives, by id.
function counting() {
  const seen = { posts: 0, gets: [], results: new Map() };
  const fetchFn = async (url, init) => {
    const h = new Headers(init?.headers);
    if ((init?.method ?? 'GET') === 'GET') {
      seen.gets.push(h.get('last-event-id'));
    } else if (init.method === 'POST') {
      seen.posts++;
    }
    return fetch(url, init);
  };
  const watch = (transport) => {
    const orig = transport.onmessage;
    transport.onmessage = (msg, extra) => {
      if ('result' in msg) {
        seen.results.set(msg.id, (seen.results.get(msg.id) ?? 0) + 1);
      }
      orig?.(msg, extra);
    };
  };
  return { seen, fetchFn, watch };
}

// tools checks tools/list and calls each tool (the same over both
// transports). interval spaces countdown's notifications: over stdio the
// SDK's client runs notification handlers on a microtask but the response
// handler at once, so a progress notification read in the same chunk as
// the response finds its handler gone (it reports "unknown token").
async function checkTools(t, client, interval = 0) {
  await t.test('list tools', { timeout: STEP_MS }, async () => {
    const { tools: all } = await client.listTools();
    for (const tool of all) {
      assert.equal(tool.inputSchema.type, 'object');
    }
    // The demo tools come first; the conformance suite's fixtures follow.
    const tools = all.slice(0, 3);
    assert.deepEqual(tools.map((x) => x.name), ['echo', 'add', 'countdown']);
    assert.deepEqual(tools[0].inputSchema.required, ['text']);
    assert.equal(tools[1].outputSchema.type, 'object');
  });
  await t.test('call echo', { timeout: STEP_MS }, async () => {
    const text = 'héllo, "world"\n\u2028 🙂';
    const r = await client.callTool({ name: 'echo', arguments: { text } });
    assert.deepEqual(r.content, [{ type: 'text', text }]);
    assert.equal(r.isError, undefined);
    const empty = await client.callTool({ name: 'echo', arguments: { text: '' } });
    assert.deepEqual(empty.content, [{ type: 'text', text: '' }]);
  });
  await t.test('call add: text and structured content (validated against its output schema)', { timeout: STEP_MS }, async () => {
    const r = await client.callTool({ name: 'add', arguments: { a: 1.25, b: 2 } });
    assert.deepEqual(r.structuredContent, { sum: 3.25 });
    assert.deepEqual(r.content, [{ type: 'text', text: '{"sum":3.25}' }]);
  });
  await t.test('call countdown: progress callbacks in order, then done', { timeout: STEP_MS }, async () => {
    const progress = [];
    const r = await client.callTool({ name: 'countdown', arguments: { n: 5, intervalMs: interval } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    assert.deepEqual(r.content, [{ type: 'text', text: 'done' }]);
    assert.deepEqual(progress.map((p) => [p.progress, p.total]), [[1, 5], [2, 5], [3, 5], [4, 5], [5, 5]]);
    const quiet = await client.callTool({ name: 'countdown', arguments: { n: 3 } });
    assert.deepEqual(quiet.content, [{ type: 'text', text: 'done' }]);
  });
  await t.test('bad arguments are a failed result; an unknown tool a protocol error', { timeout: STEP_MS }, async () => {
    const r = await client.callTool({ name: 'add', arguments: { a: 'one', b: 2 } });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /invalid arguments/);
    await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), (err) => err.code === -32602);
  });
  await t.test('ping', { timeout: STEP_MS }, async () => {
    assert.deepEqual(await client.ping(), {});
  });
}

test('MCP over Streamable HTTP (official TypeScript SDK client)', async (t) => {
  const server = await startServer(['--mcp', '--tcp', '', '--http', '127.0.0.1:0'], 'http');
  const url = new URL(`http://${server.host}:${server.port}/mcp`);
  const { seen, fetchFn, watch } = counting();
  const transport = new StreamableHTTPClientTransport(url, { fetch: fetchFn });
  const client = newClient();
  const errors = [];
  try {
    await t.test('connect', { timeout: STEP_MS }, async () => {
      await client.connect(transport);
      client.onerror = (err) => errors.push(err);
      watch(transport);
      assert.equal(transport.protocolVersion, LATEST_PROTOCOL_VERSION);
      assert.match(transport.sessionId, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{38}$/);
      assert.deepEqual(client.getServerVersion(), { name: 'jetrpc', version: '0.1.0' });
      // jetrpc serve --mcp also serves the conformance suite's fixtures (#18):
      // prompts, resources with subscriptions, logging and completions too.
      assert.deepEqual(client.getServerCapabilities(), {
        tools: {}, prompts: {}, resources: { subscribe: true }, logging: {}, completions: {},
      });
    });
    await checkTools(t, client);
    await t.test('the server cuts the event stream mid-call: resumed with Last-Event-ID, the result once', { timeout: STEP_MS }, async () => {
      const progress = [];
      const before = seen.gets.length;
      const r = await client.callTool({ name: 'countdown', arguments: { n: 6, intervalMs: 100, cutAfter: 2 } }, undefined, {
        onprogress: (p) => progress.push(p.progress),
        timeout: STEP_MS,
      });
      assert.deepEqual(r.content, [{ type: 'text', text: 'done' }]);
      assert.deepEqual(progress, [1, 2, 3, 4, 5, 6]);
      const resumed = seen.gets.slice(before).filter((id) => id !== null);
      assert.equal(resumed.length, 1, `GETs with Last-Event-ID: ${JSON.stringify(seen.gets)}`);
      assert.match(resumed[0], /^[0-9a-f]+-2$/); // the stream's second event
      const counts = [...seen.results.values()];
      assert.ok(counts.every((n) => n === 1), `results delivered: ${JSON.stringify([...seen.results])}`);
    });
    await t.test('terminate the session: its id is then unknown (404)', { timeout: STEP_MS }, async () => {
      const sid = transport.sessionId;
      await transport.terminateSession();
      assert.equal(transport.sessionId, undefined);
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sid,
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
      });
      assert.equal(res.status, 404);
      await res.body?.cancel();
    });
    await t.test('no error reported by the client', () => {
      assert.deepEqual(errors.map(String), []);
    });
  } finally {
    await client.close().catch(() => {});
    const { code } = await stopServer(server);
    if (code !== 0) {
      console.error(server.log.join('\n'));
    }
    assert.equal(code, 0, 'jetrpc serve exits 0 on SIGTERM');
  }
});

test('MCP over stdio (official TypeScript SDK client)', async (t) => {
  const transport = new StdioClientTransport({
    command: process.env.JETRPC_BIN,
    args: ['serve', '--mcp', '--stdio'],
    stderr: 'pipe',
  });
  const stderr = [];
  transport.stderr?.on('data', (b) => stderr.push(String(b)));
  const client = newClient();
  let proc;
  try {
    await t.test('connect', { timeout: STEP_MS }, async () => {
      await client.connect(transport);
      proc = transport._process;
      assert.deepEqual(client.getServerVersion(), { name: 'jetrpc', version: '0.1.0' });
    });
    await checkTools(t, client, 30);
  } finally {
    const start = Date.now();
    const exited = new Promise((resolve) => (proc ? proc.once('exit', (code) => resolve(code)) : resolve(null)));
    await client.close();
    const code = await exited;
    const took = Date.now() - start;
    if (code !== 0) {
      console.error(stderr.join(''));
    }
    assert.equal(code, 0, 'exit 0 at the end of stdin');
    assert.ok(took < 1900, `exited ${took} ms after stdin closed (the client sends SIGTERM after 2 s)`);
  }
});
