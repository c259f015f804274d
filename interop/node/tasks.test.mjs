// The MCP tasks extension (io.modelcontextprotocol/tasks, SEP-2663) at
// protocol revision 2026-07-28, through the official TypeScript client
// (@modelcontextprotocol/client, the v2 SDK) and the extension's requester
// package (@modelcontextprotocol/ext-tasks), against "jetrpc serve --mcp"
// over Streamable HTTP. The tools are the conformance fixtures of
// mcp/mcpdemo/fixtures_tasks.go.
//
// The SDK client pins 2026-07-28 (server/discover, then the stateless
// per-request _meta envelope). Its wire codecs do not know the task result
// shapes, so ext-tasks sends tools/call and tasks/* through a "raw dispatch"
// the host supplies (typescript/adapters-and-schemas.md, "Supply the V2
// request path"): here rawDispatch writes the frame to the client's own
// connected StreamableHTTPClientTransport, with string ids of its own
// ("tasks-interop-N"; the Client's are numbers), and takes the matching
// responses off the transport before the Client sees them.
// The transport still derives MCP-Protocol-Version, Mcp-Method and Mcp-Name
// (params.taskId for tasks/*) from each frame, as SEP-2243 and SEP-2663 ask.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createApplicationInputHandler,
  createTaskSessionFromClient,
  resultFromTaskOutcome,
} from '@modelcontextprotocol/ext-tasks/client';

import serverHelpers from './server.js';

const { startServer, stopServer } = serverHelpers;

const PROTOCOL = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const TEST_MS = 20_000; // each test's bound
const SETTLE_MS = 15_000; // waiting for a task's outcome, inside it
const CLIENT_INFO = { name: 'jetrpc-tasks-interop', version: '1.0.0' };
const CAPABILITIES = { elicitation: { form: {} } };

// rawChannel is the host request coordinator ext-tasks asks for: it sends
// frames on transport and resolves each with its response, recording both
// for the assertions and for failure messages.
function rawChannel(transport) {
  const sent = [];
  const received = [];
  const pending = new Map();
  let next = 0;
  const clientOnMessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (message && typeof message === 'object' && !Array.isArray(message)) {
      received.push(message);
      const waiter = typeof message.id === 'string' ? pending.get(message.id) : undefined;
      if (waiter && ('result' in message || 'error' in message)) {
        pending.delete(message.id);
        waiter(message.error ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result });
        return;
      }
    }
    clientOnMessage?.(message, extra);
  };
  const dispatch = async (request, options) => {
    const id = `tasks-interop-${++next}`;
    const frame = { ...request, jsonrpc: '2.0', id };
    sent.push(frame);
    const response = new Promise((resolve) => pending.set(id, resolve));
    const signal = options?.signal;
    try {
      await transport.send(frame, { requestSignal: signal, headers: options?.context?.headers });
      if (!signal) {
        return await response;
      }
      signal.throwIfAborted();
      return await new Promise((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        response.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
      });
    } finally {
      pending.delete(id);
    }
  };
  const restore = () => {
    transport.onmessage = clientOnMessage;
  };
  return { dispatch, sent, received, restore };
}

// frames returns the sent frames of method (for tools/call: of tool name).
function frames(channel, method, name) {
  return channel.sent.filter((f) => f.method === method && (name === undefined || f.params?.name === name));
}

// responseTo returns the response received for the frame with id.
function responseTo(channel, id) {
  return channel.received.find((m) => m.id === id && ('result' in m || 'error' in m));
}

// wire shows the exchange so far, for failure messages.
function wire(channel) {
  return JSON.stringify({ sent: channel.sent, received: channel.received }, null, 1).slice(0, 6000);
}

// settled waits (bounded) for execution's outcome.
function settled(execution, events) {
  return execution.settle({
    signal: AbortSignal.timeout(SETTLE_MS),
    onEvent: (event) => events?.push(event),
  });
}

function text(result) {
  assert.ok(Array.isArray(result?.content), `no content in ${JSON.stringify(result)}`);
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

describe('MCP tasks extension at 2026-07-28 (official TypeScript client + @modelcontextprotocol/ext-tasks)', () => {
  let server;
  let client;
  let channel;
  let session;
  const inputs = []; // every input request the application was asked, with its context
  const errors = []; // the session's background errors and the client's
  const posts = []; // the standard headers of every POST: { method, name, version }
  const recordingFetch = (url, init) => {
    if (init?.method === 'POST') {
      const h = new Headers(init.headers);
      posts.push({ method: h.get('mcp-method'), name: h.get('mcp-name'), version: h.get('mcp-protocol-version') });
    }
    return fetch(url, init);
  };

  before(async () => {
    server = await startServer(['--mcp', '--tcp', '', '--http', '127.0.0.1:0'], 'http');
    const url = new URL(`http://${server.host}:${server.port}/mcp`);
    client = new Client(CLIENT_INFO, {
      capabilities: CAPABILITIES,
      versionNegotiation: { mode: { pin: PROTOCOL } },
    });
    const transport = new StreamableHTTPClientTransport(url, { fetch: recordingFetch });
    await client.connect(transport);
    client.onerror = (err) => errors.push(err);
    channel = rawChannel(transport);
    session = createTaskSessionFromClient(client, {
      endpointId: `jetrpc-${server.host}:${server.port}`,
      rawDispatch: channel.dispatch,
      v2RequestFraming: {
        protocolVersion: PROTOCOL,
        clientInfo: CLIENT_INFO,
        clientCapabilities: { ...CAPABILITIES, extensions: { [TASKS]: {} } },
      },
      onInputRequest: createApplicationInputHandler({
        elicitation: (request, context) => {
          inputs.push({ request, scope: context.scope, inputId: context.inputId, taskId: context.taskId });
          const schema = request.params.requestedSchema;
          if (schema?.properties?.confirm) {
            return { action: 'accept', content: { confirm: true } };
          }
          if (schema?.properties?.name) {
            return { action: 'accept', content: { name: 'Ada' } };
          }
          throw new Error(`unexpected elicitation ${JSON.stringify(request.params)}`);
        },
        sampling: () => {
          throw new Error('unexpected sampling request');
        },
        roots: () => {
          throw new Error('unexpected roots request');
        },
      }),
      onError: (err) => errors.push(err),
    });
  });

  after(async () => {
    try {
      await session?.close();
      channel?.restore();
      await client?.close();
    } finally {
      if (server) {
        await stopServer(server);
      }
    }
  });

  it('connects at 2026-07-28 and negotiates the extension (a V2 task session)', { timeout: TEST_MS }, () => {
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), PROTOCOL);
    assert.deepEqual(client.getServerCapabilities()?.extensions?.[TASKS], {});
    // execution: the session can run task-backed calls (generation v2).
    assert.ok(session.capabilities.execution, JSON.stringify(session.capabilities));
  });

  it('slow_compute (1 s) is a task-backed execution whose outcome is the tool result', { timeout: TEST_MS }, async () => {
    const events = [];
    const execution = await session.callTool('slow_compute', { seconds: 1, label: 'pi' });
    assert.equal(execution.kind, 'task', wire(channel));
    const taskId = execution.handle.taskId;
    assert.equal(typeof taskId, 'string');
    const { outcome } = await settled(execution, events);
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    const result = resultFromTaskOutcome(outcome);
    assert.equal(text(result), 'Computed pi in 1 s');
    assert.notEqual(result.isError, true);

    // On the wire: tools/call declared the extension per request and was
    // answered with resultType "task"; the client then polled tasks/get
    // for that id until it completed.
    const [call] = frames(channel, 'tools/call', 'slow_compute');
    assert.equal(call.params._meta['io.modelcontextprotocol/protocolVersion'], PROTOCOL);
    assert.deepEqual(call.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions[TASKS], {});
    const created = responseTo(channel, call.id);
    assert.equal(created.result.resultType, 'task');
    assert.equal(created.result.taskId, taskId);
    const polls = frames(channel, 'tasks/get').filter((f) => f.params.taskId === taskId);
    assert.ok(polls.length >= 1, wire(channel));
    const last = responseTo(channel, polls.at(-1).id);
    assert.equal(last.result.resultType, 'complete');
    assert.equal(last.result.status, 'completed');
    assert.ok(events.some((e) => e.type === 'outcome'), JSON.stringify(events));
  });

  it('greet stays an immediate result', { timeout: TEST_MS }, async () => {
    const execution = await session.callTool('greet', { name: 'World' });
    assert.equal(execution.kind, 'immediate');
    const { outcome } = await settled(execution);
    assert.equal(outcome.status, 'completed');
    assert.equal(text(resultFromTaskOutcome(outcome)), 'Hello, World!');
    const [call] = frames(channel, 'tools/call', 'greet');
    assert.notEqual(responseTo(channel, call.id).result.resultType, 'task');
  });

  it('confirm_delete: the task asks through inputRequests, the handler confirms, tasks/update answers', { timeout: TEST_MS }, async () => {
    const before = inputs.length;
    const execution = await session.callTool('confirm_delete', { filename: 'notes.txt' });
    assert.equal(execution.kind, 'task', wire(channel));
    const taskId = execution.handle.taskId;
    const { outcome } = await settled(execution);
    assert.equal(outcome.status, 'completed', `${JSON.stringify(outcome)}\n${wire(channel)}`);
    assert.equal(text(resultFromTaskOutcome(outcome)), 'Deleted notes.txt');

    const asked = inputs.slice(before);
    assert.equal(asked.length, 1, JSON.stringify(asked));
    assert.equal(asked[0].scope, 'task');
    assert.equal(asked[0].taskId, taskId);
    assert.equal(asked[0].request.params.message, 'Delete notes.txt?');
    const [update] = frames(channel, 'tasks/update').filter((f) => f.params.taskId === taskId);
    assert.ok(update, wire(channel));
    assert.deepEqual(update.params.inputResponses[asked[0].inputId], { action: 'accept', content: { confirm: true } });
    assert.deepEqual(responseTo(channel, update.id).result?.resultType ?? 'complete', 'complete');
  });

  it('cancelling a long slow_compute (60 s) ends it as cancelled', { timeout: TEST_MS }, async () => {
    const execution = await session.callTool('slow_compute', { seconds: 60, label: 'long' });
    assert.equal(execution.kind, 'task', wire(channel));
    const taskId = execution.handle.taskId;
    const outcome = execution.result();
    await execution.cancel(AbortSignal.timeout(SETTLE_MS));
    const done = await Promise.race([
      outcome,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no outcome after cancel')), SETTLE_MS).unref()),
    ]);
    assert.equal(done.status, 'cancelled', JSON.stringify(done));
    const [cancel] = frames(channel, 'tasks/cancel').filter((f) => f.params.taskId === taskId);
    assert.ok(cancel, wire(channel));
    assert.equal(responseTo(channel, cancel.id).error, undefined, wire(channel));
    // The server agrees: tasks/get reports the task cancelled.
    const snapshot = await session.task(taskId).snapshot(AbortSignal.timeout(SETTLE_MS));
    assert.equal(snapshot.status, 'cancelled');
  });

  it('failing_job settles completed with isError; protocol_error_job settles failed with the JSON-RPC error', { timeout: TEST_MS }, async () => {
    const failing = await session.callTool('failing_job', {});
    assert.equal(failing.kind, 'task', wire(channel));
    const protocolError = await session.callTool('protocol_error_job', {});
    assert.equal(protocolError.kind, 'task', wire(channel));
    const [a, b] = await Promise.all([settled(failing), settled(protocolError)]);

    assert.equal(a.outcome.status, 'completed', JSON.stringify(a.outcome));
    assert.equal(a.outcome.result.isError, true);
    assert.equal(text(a.outcome.result), 'the job failed, as it always does');

    assert.equal(b.outcome.status, 'failed', JSON.stringify(b.outcome));
    assert.equal(b.outcome.error.code, -32603);
    assert.equal(b.outcome.error.message, 'Internal error');
    assert.equal(b.outcome.error.data, "the job's backend is unreachable");
    assert.throws(() => resultFromTaskOutcome(b.outcome), (err) => err.code === -32603);
  });

  // ext-tasks composes MRTR with tasks: session.callTool answers a
  // tools/call InputRequiredResult (scope "request", retried with
  // inputResponses and requestState) and then takes the task the retry
  // returns.
  it('test_tool_with_task: MRTR (user_name) first, then a task greeting the name', { timeout: TEST_MS }, async () => {
    const before = inputs.length;
    const execution = await session.callTool('test_tool_with_task', {});
    assert.equal(execution.kind, 'task', wire(channel));
    const { outcome } = await settled(execution);
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    assert.equal(text(resultFromTaskOutcome(outcome)), 'Hello, Ada!');

    const asked = inputs.slice(before);
    assert.equal(asked.length, 1, JSON.stringify(asked));
    assert.equal(asked[0].scope, 'request');
    assert.equal(asked[0].inputId, 'user_name');
    const calls = frames(channel, 'tools/call', 'test_tool_with_task');
    assert.equal(calls.length, 2, wire(channel));
    assert.equal(responseTo(channel, calls[0].id).result.resultType, 'input_required');
    assert.deepEqual(calls[1].params.inputResponses.user_name, { action: 'accept', content: { name: 'Ada' } });
    assert.equal(responseTo(channel, calls[1].id).result.resultType, 'task');
  });

  it('every tasks/* POST carried Mcp-Name (the task id), Mcp-Method and MCP-Protocol-Version', { timeout: TEST_MS }, () => {
    const taskPosts = posts.filter((p) => p.method?.startsWith('tasks/'));
    const ids = new Set(channel.sent.filter((f) => f.method.startsWith('tasks/')).map((f) => f.params.taskId));
    assert.ok(taskPosts.length >= 5, JSON.stringify(posts));
    for (const p of taskPosts) {
      assert.equal(p.version, PROTOCOL);
      assert.ok(ids.has(p.name), `Mcp-Name ${p.name} is no task id of ours`);
    }
    assert.deepEqual(new Set(taskPosts.map((p) => p.method)), new Set(['tasks/get', 'tasks/update', 'tasks/cancel']));
  });

  it('no background errors in the session or the client', { timeout: TEST_MS }, () => {
    assert.deepEqual(errors.map(String), []);
  });
});
