// The a2a-js peer of interop/a2a's benchmarks (#21): an A2A server on
// @a2a-js/sdk 1.3.0 (Express, its jsonRpcHandler with the 0.3
// compatibility layer on, so one endpoint serves the 1.0 and 0.3 wires as
// jetrpc's does) with the same instant echo agent as the Go servers: a
// submitted task, working, an artifact with the text, completed with the
// text as the status message.
//
// It listens on 127.0.0.1 (an ephemeral port), prints "listening URL" with
// the endpoint's URL on stdout, answers each "stats" line on stdin with
// "stats RSS HEAP" (process.memoryUsage's rss and heapUsed, in bytes) and
// exits when stdin ends. The modules come from interop/node's
// node_modules (NODE_PATH is not needed: the bench resolves them there).
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.A2A_JS_MODULES || path.join(here, '..', '..', 'node', 'node_modules');
const require = createRequire(path.join(modules, 'x.js'));
const load = (name) => import(require.resolve(name));

const express = (await load('express')).default;
const { DefaultRequestHandler, InMemoryTaskStore, AgentEvent } = await load('@a2a-js/sdk/server');
const { jsonRpcHandler, agentCardHandler, UserBuilder } = await load('@a2a-js/sdk/server/express');

const TaskState = { SUBMITTED: 1, WORKING: 2, COMPLETED: 3, CANCELED: 5 };
const ROLE_AGENT = 2;

const text = (parts) => parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
const textPart = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' });
const status = (state, message) => ({ state, message, timestamp: new Date().toISOString() });

// echo publishes the four events of the Go servers' echo, synchronously.
const echo = {
  async execute(rc, bus) {
    const msg = rc.userMessage;
    const t = text(msg.parts);
    const { taskId, contextId } = rc;
    if (!rc.task) {
      bus.publish(AgentEvent.task({ id: taskId, contextId, status: status(TaskState.SUBMITTED), artifacts: [], history: [msg], metadata: undefined }));
    }
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.WORKING), metadata: undefined }));
    bus.publish(AgentEvent.artifactUpdate({
      taskId, contextId, append: false, lastChunk: true, metadata: undefined,
      artifact: { artifactId: taskId + '-a', name: 'response', description: 'The echoed text', parts: [textPart(t)], metadata: undefined, extensions: [] },
    }));
    const reply = { messageId: taskId + '-reply', contextId, taskId, role: ROLE_AGENT, parts: [textPart(t)], metadata: undefined, extensions: [], referenceTaskIds: [] };
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.COMPLETED, reply), metadata: undefined }));
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', status: status(TaskState.CANCELED), metadata: undefined }));
    bus.finished();
  },
};

const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}/a2a`;
  const iface = (protocolVersion) => ({ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion });
  const card = {
    name: 'echo', description: 'a2a-js echo agent (jetrpc benchmark peer)', version: '0.1.0',
    supportedInterfaces: [iface('1.0'), iface('0.3')],
    provider: { organization: 'jetrpc', url: 'https://github.com/jetrpc/jetrpc' },
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {}, securityRequirements: [], signatures: [],
    defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Answers with the text it was sent', tags: ['echo'], examples: ['hello'], inputModes: [], outputModes: [], securityRequirements: [] }],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), echo);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
  app.use('/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  process.stdout.write(`listening ${url}\n`);
});
server.keepAliveTimeout = 60_000;

const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (line.trim() === 'stats') {
    const m = process.memoryUsage();
    process.stdout.write(`stats ${m.rss} ${m.heapUsed}\n`);
  }
});
rl.on('close', () => { server.close(); server.closeAllConnections(); process.exit(0); });
