'use strict';
// The ws package (Node's most used WebSocket library, which nobody here
// wrote) against the jetrpc binary's GET /ws: calls, batches and
// pipelining, the server's notifications and calls to the client, and the
// RFC 6455 rules jetrpc keeps: a text message that is not UTF-8 fails the
// connection with 1007, and calls sent just before a close frame are
// answered before the close is echoed.
//
// Run: JETRPC_BIN=/path/to/jetrpc node --test

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const WebSocket = require('ws');
const { startServer, stopServer } = require('./server');

const STEP_TIMEOUT_MS = 10_000;

// open connects to the server's /ws and collects what it receives.
function open(server) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${server.host}:${server.port}/ws`);
    const got = []; // messages, parsed
    const waiters = [];
    ws.on('message', (data, isBinary) => {
      assert.equal(isBinary, false, 'the server sends text messages');
      got.push(JSON.parse(data.toString('utf8')));
      for (const w of waiters.splice(0)) w();
    });
    ws.closed = new Promise((res) => ws.on('close', (code, reason) => res({ code, reason: reason.toString() })));
    // next resolves with the next message received (in order).
    let taken = 0;
    ws.next = () =>
      new Promise((res, rej) => {
        const timer = setTimeout(() => rej(new Error('no message within the step timeout')), STEP_TIMEOUT_MS);
        const check = () => {
          if (taken < got.length) {
            clearTimeout(timer);
            res(got[taken++]);
          } else {
            waiters.push(check);
          }
        };
        check();
      });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function withTimeout(p, what) {
  let timer;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`${what}: timed out`)), STEP_TIMEOUT_MS);
    }),
  ]);
}

describe('ws against jetrpc serve /ws', () => {
  let server;
  before(async () => {
    server = await startServer(['--tcp', '', '--http', '127.0.0.1:0'], 'http');
  });
  after(async () => {
    const { code, signal } = await stopServer(server);
    assert.equal(code, 0, `jetrpc serve exited with ${code ?? signal}; stderr:\n${server.log.join('\n')}`);
  });

  test('calls, an error, a batch, a notification', async () => {
    const ws = await open(server);
    ws.send('{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}');
    assert.deepEqual(await ws.next(), { jsonrpc: '2.0', id: 1, result: 19 });
    ws.send('{"jsonrpc":"2.0","id":"n","method":"nope"}');
    assert.equal((await ws.next()).error.code, -32601);
    ws.send('{"jsonrpc":"2.0","method":"update","params":[1]}'); // nothing comes back
    ws.send('[{"jsonrpc":"2.0","id":2,"method":"sum","params":[1,2,3]},{"jsonrpc":"2.0","method":"update"},{"jsonrpc":"2.0","id":3,"method":"get_data"}]');
    const batch = await ws.next();
    assert.deepEqual(
      batch.sort((a, b) => a.id - b.id),
      [
        { jsonrpc: '2.0', id: 2, result: 6 },
        { jsonrpc: '2.0', id: 3, result: ['hello', 5] },
      ],
    );
    ws.close(1000);
    assert.deepEqual(await withTimeout(ws.closed, 'close'), { code: 1000, reason: '' });
  });

  test('500 pipelined calls, a slow one among them, all answered by id', async () => {
    const ws = await open(server);
    ws.send('{"jsonrpc":"2.0","id":"slow","method":"sleep","params":[200]}');
    for (let i = 0; i < 500; i++) ws.send(`{"jsonrpc":"2.0","id":${i},"method":"subtract","params":[${i},1]}`);
    const seen = new Map();
    for (let i = 0; i < 501; i++) {
      const m = await ws.next();
      seen.set(m.id, m.result);
    }
    assert.equal(seen.get('slow'), 200);
    for (let i = 0; i < 500; i++) assert.equal(seen.get(i), i - 1);
    ws.close(1000);
    await withTimeout(ws.closed, 'close');
  });

  test('the server notifies and calls the client', async () => {
    const ws = await open(server);
    ws.send('{"jsonrpc":"2.0","id":1,"method":"subscribe","params":[3]}');
    for (let i = 1; i <= 3; i++) {
      const n = await ws.next();
      assert.equal(n.method, 'subscription');
      assert.deepEqual(n.params, { subscription: 1, result: i });
    }
    assert.deepEqual(await ws.next(), { jsonrpc: '2.0', id: 1, result: 3 });
    ws.send('{"jsonrpc":"2.0","id":"c","method":"callback","params":["client.double",[21]]}');
    const call = await ws.next();
    assert.equal(call.method, 'client.double');
    assert.deepEqual(call.params, [21]);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: 42 }));
    assert.deepEqual(await ws.next(), { jsonrpc: '2.0', id: 'c', result: 42 });
    ws.close(1000);
    await withTimeout(ws.closed, 'close');
  });

  test('calls sent right before a close frame are answered, then the close is echoed', async () => {
    const ws = await open(server);
    ws.send('{"jsonrpc":"2.0","id":"slow","method":"sleep","params":[100]}');
    ws.send('{"jsonrpc":"2.0","id":1,"method":"subtract","params":[5,3]}');
    ws.close(1000, 'bye');
    const closed = await withTimeout(ws.closed, 'close');
    assert.equal(closed.code, 1000);
    assert.deepEqual(
      [await ws.next(), await ws.next()],
      [
        { jsonrpc: '2.0', id: 1, result: 2 },
        { jsonrpc: '2.0', id: 'slow', result: 100 },
      ],
    );
  });

  test('a text message that is not UTF-8 fails the connection with 1007', async () => {
    for (const bad of [[0xff], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80]]) {
      const ws = await open(server);
      ws.send('{"jsonrpc":"2.0","id":1,"method":"subtract","params":[2,1]}');
      const msg = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":2,"method":"echo","params":["'), Buffer.from(bad), Buffer.from('"]}')]);
      ws.send(msg, { binary: false }); // ws sends the bytes as a text frame without checking them
      const closed = await withTimeout(ws.closed, 'close');
      assert.equal(closed.code, 1007, `bytes ${bad}: closed with ${closed.code}`);
      assert.deepEqual(await ws.next(), { jsonrpc: '2.0', id: 1, result: 1 }, 'the call before it is answered');
    }
  });

  test('a binary message that is not UTF-8 is a parse error, and the connection goes on', async () => {
    const ws = await open(server);
    ws.send(Buffer.from([0x7b, 0xff, 0x7d]), { binary: true });
    const m = await ws.next();
    assert.equal(m.error.code, -32700);
    assert.equal(m.id, null);
    ws.send('{"jsonrpc":"2.0","id":1,"method":"subtract","params":[2,1]}');
    assert.deepEqual(await ws.next(), { jsonrpc: '2.0', id: 1, result: 1 });
    ws.close(1000);
    await withTimeout(ws.closed, 'close');
  });
});
