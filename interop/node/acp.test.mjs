// The official ACP TypeScript SDK's client (@agentclientprotocol/sdk, protocol
// version 1) driving "jetrpc serve --stdio --acp" as an editor drives its
// agent: a child process, NDJSON on its stdin and stdout. The SDK validates
// every message it receives against the ACP schema (zod): an update or a
// request that does not fit it fails here.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';

import * as acp from '@agentclientprotocol/sdk';

const BIN = process.env.JETRPC_BIN;
if (!BIN) {
  throw new Error('set JETRPC_BIN to the jetrpc binary (go build -o /tmp/jetrpc ./cmd/jetrpc)');
}

const STEP_MS = 60_000; // every step has its bound
const BURST = 10_000;

function withTimeout(p, what) {
  let timer;
  return Promise.race([
    p,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${STEP_MS}ms`)), STEP_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

// startAgent spawns the agent and returns the SDK stream over its pipes,
// with the short lines it sent with id null (protocol errors) tapped on the
// way, and a way to write raw bytes to its stdin.
function startAgent() {
  const proc = spawn(BIN, ['serve', '--stdio', '--acp'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const stderr = [];
  proc.stderr.on('data', (b) => stderr.push(b.toString()));
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const nullIdLines = [];
  let tail = '';
  const decoder = new TextDecoder();
  const tap = new TransformStream({
    transform(chunk, controller) {
      controller.enqueue(chunk);
      // keep only the beginning of each line: enough to see a protocol error
      const text = decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
        const line = tail + text.slice(start, Math.min(i, start + 4096));
        if (line.includes('"id":null')) nullIdLines.push(line);
        tail = '';
        start = i + 1;
      }
      if (tail.length < 4096) tail += text.slice(start, start + 4096 - tail.length);
    },
  });
  const input = Readable.toWeb(proc.stdout).pipeThrough(tap);
  const output = Writable.toWeb(proc.stdin);
  const stream = acp.ndJsonStream(output, input);
  return { proc, exited, stderr, nullIdLines, stream, writeRaw: (s) => proc.stdin.write(s) };
}

// editor is the client app: it records updates and requests, allows or
// cancels permissions as asked, and serves files from the disk.
function editor(files) {
  const state = { updates: [], permissions: [], reads: [], onPermission: null };
  const app = acp
    .client({ name: 'jetrpc-interop' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      state.updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, async (cx) => {
      state.permissions.push(cx.params);
      if (state.onPermission) return state.onPermission(cx);
      return { outcome: { outcome: 'selected', optionId: 'allow' } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      state.reads.push(params.path);
      if (!(params.path in files)) throw acp.RequestError.resourceNotFound(params.path);
      return { content: files[params.path] };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      files[params.path] = params.content;
      return {};
    });
  return { app, state };
}

// updatesArrive waits until n updates were handled (the SDK handles a
// notification asynchronously; the answer to the prompt may be seen first).
async function updatesArrive(state, n) {
  const deadline = Date.now() + STEP_MS;
  while (state.updates.length < n && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.equal(state.updates.length, n, 'updates received');
}

function label(n) {
  const u = n.update;
  switch (u.sessionUpdate) {
    case 'agent_message_chunk':
    case 'user_message_chunk':
      return `${u.sessionUpdate}:${u.content.text}`;
    case 'tool_call':
    case 'tool_call_update':
      return `${u.sessionUpdate}:${u.status}`;
    default:
      return u.sessionUpdate;
  }
}

test('ACP: @agentclientprotocol/sdk client against jetrpc serve --stdio --acp', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'jetrpc-acp-'));
  const file = join(dir, 'notes.txt');
  writeFileSync(file, 'the editor\'s text\n');
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  const agentProc = startAgent();
  const { app, state } = editor({ [file]: 'unsaved text from the editor\n' });
  const errors = [];
  const consoleError = console.error;
  console.error = (...args) => errors.push(args.map(String).join(' '));
  t.after(() => {
    console.error = consoleError;
  });

  await app.connectWith(agentProc.stream, async (agent) => {
    const init = await withTimeout(
      agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
        clientInfo: { name: 'jetrpc-interop', version: '1.0.0' },
      }),
      'initialize',
    );
    assert.equal(init.protocolVersion, 1);
    assert.equal(init.agentCapabilities.loadSession, true);
    assert.equal(init.agentInfo.name, 'jetrpc-demo');

    const session = await withTimeout(agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [] }), 'session/new');
    const sessionId = session.sessionId;
    assert.match(sessionId, /^sess_/);
    assert.equal(session.modes.currentModeId, 'ask');
    const prompt = (blocks, what) =>
      withTimeout(agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: blocks }), what);

    await t.test('a whole turn: echo, tool call, permission, file read, end_turn', async () => {
      const r = await prompt(
        [
          { type: 'text', text: 'please read' },
          { type: 'resource_link', uri: `file://${file}`, name: 'notes.txt' },
        ],
        'session/prompt',
      );
      assert.equal(r.stopReason, 'end_turn');
      await updatesArrive(state, 5);
      assert.deepEqual(state.updates.map(label), [
        'agent_message_chunk:please ',
        'agent_message_chunk:read',
        'tool_call:pending',
        'tool_call_update:in_progress',
        'tool_call_update:completed',
      ]);
      assert.ok(state.updates.every((n) => n.sessionId === sessionId));
      const call = state.updates[2].update;
      assert.equal(call.kind, 'read');
      assert.deepEqual(call.locations, [{ path: file }]);
      assert.equal(state.permissions.length, 1);
      assert.equal(state.permissions[0].toolCall.toolCallId, call.toolCallId);
      assert.deepEqual(state.permissions[0].options.map((o) => o.kind), ['allow_once', 'reject_once']);
      assert.deepEqual(state.reads, [file]);
      assert.deepEqual(state.updates[4].update.content, [
        { type: 'content', content: { type: 'text', text: 'unsaved text from the editor\n' } },
      ]);
    });

    await t.test(`a turn of ${BURST} updates arrives whole and in order, the connection up`, async () => {
      state.updates.length = 0;
      const words = Array.from({ length: BURST }, (_, i) => `w${i}`);
      const r = await prompt([{ type: 'text', text: words.join(' ') }], 'a 10,000-word prompt');
      assert.equal(r.stopReason, 'end_turn');
      await updatesArrive(state, BURST + 2);
      for (let i = 0; i < BURST; i++) {
        const want = i < BURST - 1 ? `agent_message_chunk:w${i} ` : `agent_message_chunk:w${i}`;
        if (label(state.updates[i]) !== want) assert.fail(`update ${i} is ${label(state.updates[i])}, want ${want}`);
      }
      assert.deepEqual(state.updates.slice(BURST).map(label), ['tool_call:in_progress', 'tool_call_update:completed']);
      state.updates.length = 0;
      assert.equal((await prompt([{ type: 'text', text: 'still up' }], 'after the burst')).stopReason, 'end_turn');
      await updatesArrive(state, 4);
    });

    await t.test('a 20 MiB line works', async () => {
      state.updates.length = 0;
      const big = 'abcdefghij'.repeat(2 << 20); // 20 MiB of text in one line
      const r = await prompt([{ type: 'text', text: big }], 'a 20 MiB prompt');
      assert.equal(r.stopReason, 'end_turn');
      const chunks = Math.ceil(big.length / (64 << 10));
      await updatesArrive(state, chunks + 2);
      const echoed = state.updates.slice(0, chunks).map((n) => n.update.content.text).join('');
      assert.equal(echoed.length, big.length);
      assert.ok(echoed === big, 'the echo is the prompt');
    });

    await t.test('a garbage line gets -32700 and the session carries on', async () => {
      state.updates.length = 0;
      agentProc.nullIdLines.length = 0;
      agentProc.writeRaw('this is not json\n');
      const deadline = Date.now() + STEP_MS;
      while (agentProc.nullIdLines.length === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 5));
      }
      assert.equal(agentProc.nullIdLines.length, 1);
      const answer = JSON.parse(agentProc.nullIdLines[0]);
      assert.equal(answer.id, null);
      assert.equal(answer.error.code, -32700);
      const r = await prompt([{ type: 'text', text: 'carry on' }], 'after the garbage');
      assert.equal(r.stopReason, 'end_turn');
      await updatesArrive(state, 4);
      assert.deepEqual(state.updates.slice(0, 2).map(label), ['agent_message_chunk:carry ', 'agent_message_chunk:on']);
    });

    await t.test('session/cancel while the permission is asked ends the turn cancelled', async () => {
      state.updates.length = 0;
      state.reads.length = 0;
      state.onPermission = async (cx) => {
        await cx.agent.notify(acp.methods.agent.session.cancel, { sessionId: cx.params.sessionId });
        return { outcome: { outcome: 'cancelled' } };
      };
      const r = await prompt([{ type: 'text', text: `file://${file}` }], 'a cancelled turn');
      state.onPermission = null;
      assert.equal(r.stopReason, 'cancelled');
      assert.deepEqual(state.reads, []);
    });

    await t.test('session/load replays the session', async () => {
      state.updates.length = 0;
      const r = await withTimeout(agent.request(acp.methods.agent.session.load, { sessionId, cwd: dir, mcpServers: [] }), 'session/load');
      assert.equal(r.modes.currentModeId, 'ask');
      await updatesArrive(state, 2 * 5); // the five turns that ended end_turn: a user and an agent chunk each
      assert.equal(label(state.updates[0]), 'user_message_chunk:please read');
      await withTimeout(agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'code' }), 'session/set_mode');
      await assert.rejects(
        agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'nope' }),
        (err) => err.code === -32602,
      );
    });
  });

  // the SDK logged nothing but the answer to the garbage line (a response
  // with id null matches none of its requests)
  assert.deepEqual(
    errors.filter((e) => !e.includes('Got response to unknown request')),
    [],
    'errors logged by the SDK',
  );
  agentProc.proc.stdin.end();
  const { code } = await withTimeout(agentProc.exited, 'agent exit');
  assert.equal(code, 0, `agent exit code; stderr:\n${agentProc.stderr.join('')}`);
});
