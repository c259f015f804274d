'use strict';
// Helpers of the browser tests (#20): the jetrpc binary ($JETRPC_BIN) with
// its listening lines, Debian's Chromium ($CHROMIUM, default
// /usr/bin/chromium) driven by playwright-core, which downloads nothing,
// and a directory for the screenshots ($SHOTS, default a new temporary
// one; never committed).

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { chromium } = require('playwright-core');

const BIN = process.env.JETRPC_BIN;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

let shots;
function shotDir() {
  if (!shots) {
    shots = process.env.SHOTS || fs.mkdtempSync(path.join(os.tmpdir(), 'jetrpc-shots-'));
    fs.mkdirSync(shots, { recursive: true });
    console.log(`# screenshots in ${shots}`);
  }
  return shots;
}

// jetrpc runs the binary with args and resolves once it has printed a
// "listening KIND ADDR" line for each of kinds, with { proc, addr: {KIND:
// "host:port"}, log, stop() }.
function jetrpc(args, kinds) {
  if (!BIN) throw new Error('set JETRPC_BIN to the jetrpc binary (go build -o /tmp/jetrpc ./cmd/jetrpc)');
  const proc = spawn(BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const log = [];
  const addr = {};
  const orphan = () => proc.kill('SIGKILL');
  process.on('exit', orphan);
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => {
    process.off('exit', orphan);
    resolve({ code, signal });
  }));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => {
        proc.kill('SIGKILL');
        resolve({ code: null, signal: 'SIGKILL after SIGTERM timed out' });
      }, STOP_TIMEOUT_MS);
    });
    const r = await Promise.race([exited, late]);
    clearTimeout(timer);
    return r;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`jetrpc ${args.join(' ')}: no listening lines within ${START_TIMEOUT_MS}ms:\n${log.join('\n')}`));
    }, START_TIMEOUT_MS);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`jetrpc ${args.join(' ')} exited (${code ?? signal}):\n${log.join('\n')}`));
    });
    readline.createInterface({ input: proc.stderr }).on('line', (line) => {
      log.push(line);
      const m = /^listening (\S+) (\S+)$/.exec(line);
      if (m) addr[m[1]] = m[2];
      if (kinds.every((k) => addr[k])) {
        clearTimeout(timer);
        resolve({ proc, addr, log, stop });
      }
    });
  });
}

// browser launches headless Chromium the way this machine allows: no
// sandbox (root), no GPU, no background networking (the network is
// closed), a fresh profile.
async function browser({ args = [] } = {}) {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium package (.ci/run does) or set CHROMIUM`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-default-apps', ...args],
  });
}

// shot saves a screenshot of page as NAME.png.
async function shot(page, name) {
  await page.screenshot({ path: path.join(shotDir(), `${name}.png`), fullPage: true });
}

module.exports = { jetrpc, browser, shot, shotDir };
