'use strict';
// Starting and stopping the jetrpc binary ($JETRPC_BIN) for the interop
// tests.

const { spawn } = require('node:child_process');
const readline = require('node:readline');

const START_TIMEOUT_MS = 30_000; // the binary prints its listening line
const STOP_TIMEOUT_MS = 15_000; // SIGTERM to exit (the server's shutdown grace is 10s)

const BIN = process.env.JETRPC_BIN;
if (!BIN) {
  throw new Error('set JETRPC_BIN to the jetrpc binary (go build -o /tmp/jetrpc ./cmd/jetrpc)');
}

// startServer runs "jetrpc serve ARGS..." and resolves with { proc, exited,
// log, host, port } once it prints "listening LISTENER ADDR" (LISTENER: tcp
// or http).
function startServer(args, listener) {
  const proc = spawn(BIN, ['serve', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log = [];
  const orphan = () => proc.kill('SIGKILL'); // should this process end with the server still up
  process.on('exit', orphan);
  const exited = new Promise((resolve) =>
    proc.on('exit', (code, signal) => {
      process.off('exit', orphan);
      resolve({ code, signal });
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`no listening line within ${START_TIMEOUT_MS}ms; stderr:\n${log.join('\n')}`));
    }, START_TIMEOUT_MS);
    proc.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`jetrpc serve exited (${code ?? signal}) before listening; stderr:\n${log.join('\n')}`));
    });
    readline.createInterface({ input: proc.stderr }).on('line', (line) => {
      log.push(line);
      const m = new RegExp(`^listening ${listener} (\\S+)$`).exec(line);
      if (m) {
        clearTimeout(timer);
        const i = m[1].lastIndexOf(':');
        resolve({ proc, exited, log, host: m[1].slice(0, i).replace(/^\[|\]$/g, ''), port: Number(m[1].slice(i + 1)) });
      }
    });
  });
}

// stopServer sends SIGTERM and resolves with the exit code, killing the
// server if it has not exited within STOP_TIMEOUT_MS.
async function stopServer(server) {
  if (server.proc.exitCode !== null || server.proc.signalCode !== null) {
    return server.exited;
  }
  server.proc.kill('SIGTERM');
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => {
      server.proc.kill('SIGKILL');
      resolve({ code: null, signal: 'SIGKILL (after SIGTERM timed out)' });
    }, STOP_TIMEOUT_MS);
  });
  const result = await Promise.race([server.exited, timeout]);
  clearTimeout(timer);
  return result;
}

module.exports = { startServer, stopServer };
