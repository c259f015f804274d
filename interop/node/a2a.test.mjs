// The official A2A JavaScript SDK's client (@a2a-js/sdk 1.3.0, the 1.0
// wire: PascalCase methods, the A2A-Version header, ProtoJSON) against
// "jetrpc serve --a2a": the client is made from the agent card, picks the
// 1.0 JSON-RPC interface, and sends, streams, gets, lists, cancels,
// subscribes in the middle of a stream and sets a push config whose
// webhook must get the notifications with its token.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';

import { ClientFactory } from '@a2a-js/sdk/client';

const BIN = process.env.JETRPC_BIN;
if (!BIN) {
  throw new Error('set JETRPC_BIN to the jetrpc binary (go build -o /tmp/jetrpc ./cmd/jetrpc)');
}

function startServer() {
  const proc = spawn(BIN, ['serve', '--a2a', '--a2a-allow-private-webhooks', '--tcp', '', '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('jetrpc serve --a2a did not start')), 10_000);
    proc.stderr.on('data', (d) => {
      buf += d;
      const m = buf.match(/listening http (\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, addr: m[1] });
      }
    });
  });
}

function stop(proc) {
  return new Promise((resolve) => {
    const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    proc.on('exit', () => { clearTimeout(t); resolve(); });
    proc.kill('SIGINT');
  });
}

const user = (text, messageId = crypto.randomUUID()) => ({
  messageId, role: 1 /* ROLE_USER */, parts: [{ content: { $case: 'text', value: text } }],
});

const kind = (ev) => {
  const p = ev.payload ?? ev;
  if (p.$case === 'task') return `task:${p.value.status.state}`;
  if (p.$case === 'statusUpdate') return `status:${p.value.status.state}`;
  return p.$case;
};

test('@a2a-js/sdk client on the 1.0 wire', { timeout: 60_000 }, async (t) => {
  const { proc, addr } = await startServer();
  t.after(() => stop(proc));
  const client = await new ClientFactory().createFromUrl(`http://${addr}`);
  assert.equal(client.protocolVersion, '1.0');

  await t.test('send (blocking by default), get, list', async () => {
    const res = await client.sendMessage({ message: user('hello') });
    const task = res.payload?.value ?? res;
    assert.equal(task.status.state, 3 /* COMPLETED */);
    assert.equal(task.artifacts[0].parts[0].content.value, 'hello');
    const got = await client.getTask({ id: task.id, historyLength: 1 });
    assert.equal(got.id, task.id);
    assert.equal(got.history.length, 1);
    // status 0 (UNSPECIFIED): without it the SDK sends "status":"UNRECOGNIZED"
    const list = await client.listTasks({ contextId: task.contextId, status: 0 });
    assert.deepEqual(list.tasks.map((x) => x.id), [task.id]);
    await assert.rejects(client.getTask({ id: 'no-such-task' }), (e) => e.name === 'TaskNotFoundError');
  });

  await t.test('cancel a working task', async () => {
    const res = await client.sendMessage({ message: user('long', 'test-resubscribe-message-id-js-c'), configuration: { returnImmediately: true } });
    const task = res.payload?.value ?? res;
    const canceled = await client.cancelTask({ id: task.id });
    assert.equal(canceled.status.state, 5 /* CANCELED */);
    await assert.rejects(client.cancelTask({ id: task.id }), (e) => e.name === 'TaskNotCancelableError');
  });

  await t.test('stream, and subscribe in its middle: every remaining event once', async () => {
    const first = [];
    let sub;
    for await (const ev of client.sendMessageStream({ message: user('hi', 'test-resubscribe-message-id-js-s') })) {
      first.push(kind(ev));
      if (first.length === 2) {
        const id = ev.payload?.value?.taskId;
        sub = (async () => {
          const got = [];
          for await (const e of client.resubscribeTask({ id })) got.push(kind(e));
          return got;
        })();
      }
    }
    assert.deepEqual(first, ['task:1', 'status:2', 'artifactUpdate', 'status:3']);
    assert.deepEqual(await sub, ['task:2', 'artifactUpdate', 'status:3']);
  });

  await t.test('push notification to a webhook with its token', async () => {
    const got = [];
    let done;
    const completed = new Promise((r) => { done = r; });
    const hook = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => { body += d; });
      req.on('end', () => {
        got.push({ token: req.headers['x-a2a-notification-token'], body });
        if (body.includes('TASK_STATE_COMPLETED')) done();
        res.end();
      });
    });
    await new Promise((r) => hook.listen(0, '127.0.0.1', r));
    t.after(() => hook.close());
    const res = await client.sendMessage({ message: user('push'), configuration: { returnImmediately: true } });
    const task = res.payload?.value ?? res;
    const cfg = await client.createTaskPushNotificationConfig({
      taskId: task.id, id: 'js-hook', url: `http://127.0.0.1:${hook.address().port}/hook`, token: 'js-token',
    });
    assert.equal(cfg.id, 'js-hook');
    await Promise.race([completed, new Promise((_, rej) => setTimeout(() => rej(new Error(`webhook got ${JSON.stringify(got)}`)), 10_000))]);
    assert.ok(got.length > 0 && got.every((g) => g.token === 'js-token'), JSON.stringify(got));
  });
});
