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

// permessage-deflate (RFC 7692): ws with perMessageDeflate on against the
// binary, which compresses messages of at least --compress-min bytes
// (default 1 KiB) and answers without context takeover on either side.

// openDeflate connects with the perMessageDeflate options pmd and resolves
// with the socket, the server's Sec-WebSocket-Extensions answer, and a tap
// of the server's frames: tap.frames() returns [{rsv1, len}] of the frames
// received since the last call (len: their bytes on the wire).
function openDeflate(server, pmd) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${server.host}:${server.port}/ws`, { perMessageDeflate: pmd });
    const got = [];
    const waiters = [];
    let answer;
    ws.on('upgrade', (res) => {
      answer = res.headers['sec-websocket-extensions'];
    });
    ws.on('message', (data) => {
      got.push(JSON.parse(data.toString('utf8')));
      for (const w of waiters.splice(0)) w();
    });
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
    ws.closed = new Promise((res) => ws.on('close', (code) => res(code)));
    // The tap parses frame headers out of the raw bytes (the server's
    // frames are never masked).
    let buf = Buffer.alloc(0);
    let frames = [];
    const tap = {
      frames() {
        const f = frames;
        frames = [];
        return f;
      },
    };
    ws.once('open', () => {
      ws._socket.on('data', (chunk) => {
        buf = Buffer.concat([buf, chunk]);
        for (;;) {
          if (buf.length < 2) return;
          let hdr = 2;
          let n = buf[1] & 0x7f;
          if (n === 126) {
            if (buf.length < 4) return;
            hdr = 4;
            n = buf.readUInt16BE(2);
          } else if (n === 127) {
            if (buf.length < 10) return;
            hdr = 10;
            n = Number(buf.readBigUInt64BE(2));
          }
          if (buf.length < hdr + n) return;
          frames.push({ rsv1: (buf[0] & 0x40) !== 0, len: hdr + n });
          buf = buf.subarray(hdr + n);
        }
      });
      resolve({ ws, answer, tap });
    });
    ws.once('error', reject);
  });
}

// logs is a log-like eth_getLogs result of about n bytes: hex addresses,
// topics, block numbers.
function logs(n) {
  const hex = (len, seed) => {
    let s = '';
    let x = seed;
    for (let i = 0; i < len; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      s += ((x >>> 16) & 15).toString(16);
    }
    return '0x' + s;
  };
  const addrs = [0, 1, 2, 3].map((i) => hex(40, i + 1));
  const topic = hex(64, 99);
  const out = [];
  for (let i = 0; JSON.stringify(out).length < n; i++) {
    out.push({
      address: addrs[i % 4],
      topics: [topic, '0x000000000000000000000000' + addrs[(i + 1) % 4].slice(2)],
      data: '0x' + '0'.repeat(48) + hex(16, i).slice(2),
      blockNumber: '0x' + (19000000 + (i >> 3)).toString(16),
      transactionHash: hex(64, 1000 + (i >> 1)),
      logIndex: '0x' + i.toString(16),
      removed: false,
    });
  }
  return out;
}

describe('ws with permessage-deflate against jetrpc serve /ws', () => {
  let server;
  let off;
  before(async () => {
    server = await startServer(['--tcp', '', '--http', '127.0.0.1:0'], 'http');
    off = await startServer(['--tcp', '', '--http', '127.0.0.1:0', '--compress-min', '0'], 'http');
  });
  after(async () => {
    for (const s of [server, off]) {
      const { code, signal } = await stopServer(s);
      assert.equal(code, 0, `jetrpc serve exited with ${code ?? signal}; stderr:\n${s.log.join('\n')}`);
    }
  });

  test('the negotiated parameters: no context takeover, the window asked for', async () => {
    const noCT = 'permessage-deflate; server_no_context_takeover; client_no_context_takeover';
    for (const [pmd, want] of [
      [true, noCT], // ws's default offer: permessage-deflate; client_max_window_bits
      [{ serverNoContextTakeover: true }, noCT],
      [{ serverNoContextTakeover: true, serverMaxWindowBits: 10 }, noCT + '; server_max_window_bits=10'],
      [false, undefined],
    ]) {
      const { ws, answer } = await openDeflate(server, pmd);
      assert.equal(answer, want, `offer ${JSON.stringify(pmd)}`);
      ws.close(1000);
      assert.equal(await withTimeout(ws.closed, 'close'), 1000);
    }
    const { ws, answer } = await openDeflate(off, { serverNoContextTakeover: true });
    assert.equal(answer, undefined, '--compress-min 0 answers no extension');
    ws.close(1000);
    await withTimeout(ws.closed, 'close');
  });

  for (const window of [undefined, 9]) {
    test(`calls, a batch, notifications and a call to the client, compressed (server_max_window_bits ${window})`, async () => {
      const { ws, tap } = await openDeflate(server, { serverNoContextTakeover: true, serverMaxWindowBits: window, threshold: 1024 });
      const result = logs(64 << 10);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: result }));
      assert.deepEqual(await ws.next(), { jsonrpc: '2.0', id: 1, result });
      let f = tap.frames();
      assert.equal(f.length, 1);
      assert.ok(f[0].rsv1, 'a 64 KiB result goes compressed');
      const plain = JSON.stringify({ jsonrpc: '2.0', id: 1, result }).length;
      assert.ok(f[0].len * 5 <= plain, `${f[0].len} bytes on the wire for ${plain}: want at least 5x fewer`);

      ws.send('{"jsonrpc":"2.0","id":2,"method":"subtract","params":[42,23]}');
      assert.deepEqual(await ws.next(), { jsonrpc: '2.0', id: 2, result: 19 });
      assert.deepEqual(tap.frames().map((x) => x.rsv1), [false], 'a small answer goes plain');

      const small = logs(800);
      ws.send(JSON.stringify([
        { jsonrpc: '2.0', id: 3, method: 'echo', params: small },
        { jsonrpc: '2.0', id: 4, method: 'echo', params: small },
      ]));
      const batch = (await ws.next()).sort((a, b) => a.id - b.id);
      assert.deepEqual(batch, [{ jsonrpc: '2.0', id: 3, result: small }, { jsonrpc: '2.0', id: 4, result: small }]);
      assert.deepEqual(tap.frames().map((x) => x.rsv1), [true], 'the batch answer goes compressed');

      // subscribe's notifications carry the call's id: a long one makes
      // them longer than the threshold.
      const id = 'sub-' + 'ab'.repeat(600);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'subscribe', params: [3] }));
      for (let i = 1; i <= 3; i++) {
        assert.deepEqual(await ws.next(), { jsonrpc: '2.0', method: 'subscription', params: { subscription: id, result: i } });
      }
      assert.deepEqual(await ws.next(), { jsonrpc: '2.0', id, result: 3 });
      assert.deepEqual(tap.frames().map((x) => x.rsv1), [true, true, true, true], 'the notifications go compressed');

      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'c', method: 'callback', params: ['client.echo', logs(1500)] }));
      const call = await ws.next();
      assert.equal(call.method, 'client.echo');
      assert.deepEqual(call.params, logs(1500));
      assert.deepEqual(tap.frames().map((x) => x.rsv1), [true], "the server's call goes compressed");
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: 'ok' }));
      assert.deepEqual(await ws.next(), { jsonrpc: '2.0', id: 'c', result: 'ok' });
      ws.close(1000);
      assert.equal(await withTimeout(ws.closed, 'close'), 1000);
    });
  }

  test('without the extension the same answers go plain', async () => {
    const { ws, answer, tap } = await openDeflate(server, false);
    assert.equal(answer, undefined);
    const result = logs(64 << 10);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: result }));
    assert.deepEqual(await ws.next(), { jsonrpc: '2.0', id: 1, result });
    const f = tap.frames();
    assert.equal(f.length, 1);
    assert.equal(f[0].rsv1, false);
    ws.close(1000);
    await withTimeout(ws.closed, 'close');
  });
});
