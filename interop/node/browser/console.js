'use strict';
// The web console (#20) in headless Chromium, through its data-testid
// hooks: against "jetrpc serve --ui" (the page at /ui/ on the HTTP
// listener), and against "jetrpc ui" in front of a second jetrpc serve
// over tcp://. Each view is saved as a screenshot (lib.js: $SHOTS).
//
// Run: JETRPC_BIN=/path/to/jetrpc node --test browser/console.js

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { jetrpc, browser, shot } = require('./lib');

const STEP_MS = 10_000;
const DEMO = ['subtract', 'sum', 'update', 'notify_hello', 'notify_sum', 'get_data', 'echo', 'sleep', 'fail', 'panic',
  'subscribe', 'callback', 'demo_subscribe', 'demo_unsubscribe'];

// suite runs the console's checks on the page that setup() returns the URL
// of.
function suite(name, setup) {
  describe(name, { timeout: 120_000 }, () => {
    let b, page, url, stopAll;
    const errors = [];
    const hook = (id) => page.getByTestId(id);
    const response = async () => JSON.parse(await hook('response').textContent());
    // send clicks a button and waits for the response pane to change.
    const send = async (button) => {
      const before = await hook('history').locator('> li').count();
      await hook(button).click();
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid=history] > li').length > n, before,
        { timeout: STEP_MS });
    };
    const pick = (m) => hook('method-list').locator(`[data-method="${m}"]`).click();

    before(async () => {
      ({ url, stopAll } = await setup());
      b = await browser();
      page = await b.newPage({ viewport: { width: 1280, height: 800 } });
      page.setDefaultTimeout(STEP_MS);
      page.on('pageerror', (e) => errors.push(e.message));
    });
    after(async () => {
      await b?.close();
      await stopAll?.();
      assert.deepEqual(errors, [], 'errors in the page');
    });

    it('lists the demo methods, with a filter', async () => {
      await page.goto(url);
      await page.waitForSelector('body[data-ready=true]');
      const fcp = await page.evaluate(() => performance.getEntriesByType('paint').map((p) => `${p.name} ${p.startTime.toFixed(0)} ms`));
      console.log(`# ${name}: ${fcp.join(', ')}`);
      const listed = await hook('method-list').locator('[data-method]').evaluateAll((els) => els.map((e) => e.dataset.method));
      for (const m of DEMO) assert.ok(listed.includes(m), `${m} not listed: ${listed}`);
      await shot(page, `${name}-methods`);
      await hook('method-filter').fill('sub');
      const filtered = await hook('method-list').locator('[data-method]').evaluateAll((els) => els.map((e) => e.dataset.method));
      assert.deepEqual(filtered.sort(), ['demo_subscribe', 'demo_unsubscribe', 'subscribe', 'subtract']);
      await hook('method-filter').fill('');
    });

    it('subtract by form gives 19', async () => {
      await pick('subtract');
      await hook('param-minuend').fill('42');
      await hook('param-subtrahend').fill('23');
      assert.deepEqual(JSON.parse(await hook('params-json').inputValue()), { minuend: 42, subtrahend: 23 });
      await send('send');
      const r = await response();
      assert.equal(r.result, 19);
      assert.equal(r.jsonrpc, '2.0');
      assert.equal(await hook('error-code').isVisible(), false);
      await shot(page, `${name}-form`);
    });

    it('subtract by raw JSON gives 19, and the form follows', async () => {
      await pick('subtract');
      await hook('params-json').fill('{"minuend": 50, "subtrahend": 31}');
      assert.equal(await hook('param-minuend').inputValue(), '50');
      assert.equal(await hook('param-subtrahend').inputValue(), '31');
      await send('send');
      assert.equal((await response()).result, 19);
      await hook('params-json').fill('[42, 23]');
      await send('send');
      assert.equal((await response()).result, 19);
    });

    it('shows a schema violation but still sends', async () => {
      await pick('subtract');
      await hook('params-json').fill('{"minuend": "forty-two", "subtrahend": 23}');
      await page.waitForFunction(() => document.querySelector('[data-testid=validation]').textContent.includes('minuend'));
      await send('send');
      assert.equal((await response()).error.code, -32602);
      assert.equal(await hook('error-code').textContent(), '-32602');
      assert.equal(await hook('error-name').textContent(), 'Invalid params');
    });

    it('fail shows its code', async () => {
      await pick('fail');
      await hook('param-code').fill('-32050');
      await hook('param-message').fill('boom');
      assert.deepEqual(JSON.parse(await hook('params-json').inputValue()), { code: -32050, message: 'boom' });
      await send('send');
      assert.equal(await hook('error-code').textContent(), '-32050');
      assert.equal((await response()).error.message, 'boom');
      await shot(page, `${name}-error`);
    });

    it('a batch of two gives an array of two', async () => {
      await pick('subtract');
      await hook('params-json').fill('[42, 23]');
      await hook('batch-add').click();
      await pick('sum');
      await hook('params-json').fill('[1, 2, 3]');
      await hook('batch-add').click();
      assert.equal(await hook('batch-count').textContent(), '2');
      await send('batch-send');
      const r = await response();
      assert.ok(Array.isArray(r), `not an array: ${JSON.stringify(r)}`);
      assert.equal(r.length, 2);
      assert.deepEqual(r.map((m) => m.result).sort((x, y) => x - y), [6, 19]);
      await shot(page, `${name}-batch`);
    });

    it('a notification gets no response', async () => {
      await pick('update');
      await hook('params-json').fill('[1, 2]');
      await send('notify');
      assert.equal(await hook('response').textContent(), '');
      assert.match(await hook('response-status').textContent(), /204/);
    });

    it('history: run again, copy as curl and as jetrpc call', async () => {
      const items = hook('history').locator('> li');
      assert.ok(await items.count() >= 6);
      await items.last().getByRole('button', { name: 'curl' }).click();
      assert.match(await hook('copy-output').textContent(), /^curl -sS .*--data-binary '\{"jsonrpc":"2.0","method":"subtract"/);
      await items.last().getByRole('button', { name: 'jetrpc call' }).click();
      assert.match(await hook('copy-output').textContent(), /^jetrpc call --(http|tcp) \S+ 'subtract' '\{"minuend":42,"subtrahend":23\}'$/);
      const n = await items.count();
      await items.last().getByRole('button', { name: 'run again' }).click();
      await page.waitForFunction((k) => document.querySelectorAll('[data-testid=history] > li').length > k, n);
      assert.equal((await response()).result, 19);
      await shot(page, `${name}-history`);
    });

    it('subscribe [3] over ws shows three notifications', async () => {
      await hook('transport').selectOption('ws');
      await pick('subscribe');
      await hook('params-json').fill('[3]');
      await send('send');
      assert.equal((await response()).result, 3);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=notifications] > *').length >= 3);
      const got = (await hook('notifications').locator('> *').allTextContents()).map((t) => JSON.parse(t));
      assert.equal(got.length, 3);
      got.forEach((m, i) => {
        assert.equal(m.method, 'subscription');
        assert.equal(m.params.result, i + 1);
      });
      // a batch over ws too
      await pick('sum');
      await hook('params-json').fill('[1, 2]');
      await hook('batch-add').click();
      await hook('batch-add').click();
      await send('batch-send');
      assert.equal((await response()).length, 2);
      await shot(page, `${name}-ws`);
      await hook('transport').selectOption('http');
    });
  });
}

suite('serve --ui', async () => {
  const srv = await jetrpc(['serve', '--tcp', '', '--http', '127.0.0.1:0', '--ui'], ['http']);
  return { url: `http://${srv.addr.http}/ui/`, stopAll: async () => assert.deepEqual(await srv.stop(), { code: 0, signal: null }) };
});

suite('jetrpc ui tcp', async () => {
  const srv = await jetrpc(['serve', '--tcp', '127.0.0.1:0', '--http', ''], ['tcp']);
  const con = await jetrpc(['ui', '--listen', '127.0.0.1:0', `tcp://${srv.addr.tcp}`], ['ui']);
  return {
    url: `http://${con.addr.ui}/`,
    stopAll: async () => {
      assert.deepEqual(await con.stop(), { code: 0, signal: null });
      assert.deepEqual(await srv.stop(), { code: 0, signal: null });
    },
  };
});
