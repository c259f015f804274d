// jetrpc console: a page for any JSON-RPC 2.0 server. Plain ES module, no
// dependencies, no build step. config.json (served beside this file by
// package ui) says where calls go; methods come from the OpenRPC document
// (config.document, else the server's rpc.discover).

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...kids) => {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...kids);
  return e;
};

// Standard and jetrpc error codes (encode.Code).
const CODES = {
  '-32700': 'Parse error', '-32600': 'Invalid Request', '-32601': 'Method not found',
  '-32602': 'Invalid params', '-32603': 'Internal error', '-32000': 'Server error',
  '-32001': 'Server overloaded', '-32002': 'Server shutting down', '-32003': 'Request timed out',
  '-32005': 'Limit exceeded', '-32006': 'Unauthorized', '-32007': 'Forbidden',
};

const st = {
  cfg: {}, doc: null, methods: [], method: null, nextId: 1, batch: [],
  ws: null, wsOpen: null, pending: new Map(), rpcURL: '', wsURL: '',
};

// ---- the OpenRPC document ----

function resolve(schema, depth = 0) {
  while (schema && schema.$ref && depth++ < 32) {
    const m = /^#\/components\/schemas\/(.+)$/.exec(schema.$ref);
    schema = m ? st.doc?.components?.schemas?.[decodeURIComponent(m[1])] : undefined;
  }
  return schema ?? {};
}

async function loadDocument() {
  try {
    if (st.cfg.document) {
      const r = await fetch(st.cfg.document);
      if (!r.ok) throw new Error(`GET ${st.cfg.document}: ${r.status}`);
      st.doc = await r.json();
    } else {
      const r = await post({ jsonrpc: '2.0', method: 'rpc.discover', id: 0 });
      const msg = JSON.parse(r.text);
      if (!msg.result) throw new Error(msg.error ? `rpc.discover: ${msg.error.code} ${msg.error.message}` : 'rpc.discover: no result');
      st.doc = msg.result;
    }
    st.methods = (st.doc.methods ?? []).map(resolveMethod).filter((m) => m.name);
    $('doc-state').textContent = `${st.methods.length} methods` + (st.doc.info?.title ? ` of ${st.doc.info.title}` : '');
  } catch (e) {
    $('doc-state').textContent = `No OpenRPC document (${e.message}): type a method name.`;
  }
  renderMethods();
}

function resolveMethod(m) {
  m = m.$ref ? resolve(m) : m;
  return { ...m, params: (m.params ?? []).map((p) => (p.$ref ? resolveRef(p.$ref) : p)) };
}

function resolveRef(ref) {
  const m = /^#\/components\/contentDescriptors\/(.+)$/.exec(ref);
  return (m && st.doc?.components?.contentDescriptors?.[m[1]]) || { name: ref };
}

function renderMethods() {
  const q = $('filter').value.trim().toLowerCase();
  const list = $('methods');
  list.replaceChildren();
  for (const m of st.methods) {
    const text = `${m.name} ${m.summary ?? ''}`.toLowerCase();
    if (q && !text.includes(q)) continue;
    const li = el('li', { tabIndex: 0, title: m.description ?? m.summary ?? '' }, el('b', { textContent: m.name }),
      el('small', { textContent: m.summary ?? '' }));
    li.dataset.method = m.name;
    li.classList.toggle('on', m === st.method);
    li.onclick = () => select(m);
    li.onkeydown = (ev) => ev.key === 'Enter' && select(m);
    list.append(li);
  }
}

// ---- the params form ----

function select(m) {
  st.method = m;
  $('method').value = m.name;
  $('summary').textContent = m.summary ?? '';
  $('description').textContent = m.description ?? '';
  const variadic = m.params.some((p) => p['x-variadic']);
  const ps = m.paramStructure ?? 'either';
  $('structure').value = ps === 'by-position' || (ps !== 'by-name' && variadic) ? 'by-position' : 'by-name';
  $('structure').disabled = ps !== 'either';
  renderForm();
  const ex = m.examples?.[0]?.params;
  if (ex) fillForm(exampleValues(m, ex));
  syncJSON();
  renderMethods();
}

function exampleValues(m, ex) {
  const vals = {};
  for (const { name, value } of ex) {
    const base = String(name).replace(/\[\d+\]$/, '');
    const p = m.params.find((q) => q.name === base);
    if (p?.['x-variadic']) (vals[base] ??= []).push(value);
    else vals[base] = value;
  }
  return vals;
}

function renderForm() {
  const form = $('form');
  form.replaceChildren();
  for (const p of st.method?.params ?? []) {
    const s = resolve(p.schema);
    const id = `param-${p.name}`;
    const hint = p['x-variadic'] ? `[${typeHint(s)}, ...]` : typeHint(s);
    const input = el('input', { id, name: p.name, placeholder: hint, title: p.description ?? p.summary ?? '' });
    input.dataset.testid = id;
    input.oninput = syncJSON;
    form.append(el('label', { htmlFor: id, textContent: p.name, className: p.required ? 'req' : '' }), input);
    const note = p.description ?? p.summary ?? s.description;
    if (note) form.append(el('small', { textContent: note }));
  }
}

function typeHint(s) {
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const t = [].concat(s.type ?? (s.properties ? 'object' : 'any'));
  return t.join(' | ');
}

const isStringOnly = (s) => s.type === 'string' || (s.enum && s.enum.every((v) => typeof v === 'string'));

// fieldValue reads an input: empty is undefined; a string-typed field is its
// text; anything else is JSON if it parses, else the text (flagged by
// validation).
function fieldValue(p, input) {
  const text = input.value;
  if (text.trim() === '') return undefined;
  if (isStringOnly(resolve(p.schema)) && !p['x-variadic']) return text;
  try {
    const v = JSON.parse(text);
    return p['x-variadic'] && !Array.isArray(v) ? [v] : v;
  } catch {
    return text;
  }
}

const fieldText = (p, v) => (typeof v === 'string' && isStringOnly(resolve(p.schema)) && !p['x-variadic'] ? v : JSON.stringify(v));

function formParams() {
  const ps = st.method?.params ?? [];
  if (!ps.length) return undefined;
  const byName = $('structure').value === 'by-name';
  const out = byName ? {} : [];
  let last = -1;
  ps.forEach((p, i) => {
    const v = fieldValue(p, $(`param-${p.name}`));
    if (v === undefined) return;
    if (byName) out[p.name] = v;
    else last = i;
  });
  if (!byName) {
    for (let i = 0; i <= last; i++) {
      const v = fieldValue(ps[i], $(`param-${ps[i].name}`));
      if (ps[i]['x-variadic']) out.push(...(v ?? []));
      else out.push(v === undefined ? null : v);
    }
  }
  return out;
}

function fillForm(vals) {
  for (const p of st.method?.params ?? []) {
    const v = vals[p.name];
    $(`param-${p.name}`).value = v === undefined ? '' : fieldText(p, v);
  }
}

// syncJSON writes the form into the raw JSON.
function syncJSON() {
  const v = formParams();
  $('params').value = v === undefined ? '' : JSON.stringify(v);
  validate();
}

// syncForm writes the raw JSON into the form, when it parses.
function syncForm() {
  const ps = st.method?.params;
  let v;
  try {
    v = JSON.parse($('params').value || 'null');
  } catch {
    validate();
    return;
  }
  if (ps?.length && v && typeof v === 'object') {
    const vals = {};
    if (Array.isArray(v)) {
      ps.forEach((p, i) => (vals[p.name] = p['x-variadic'] ? (i < v.length ? v.slice(i) : undefined) : v[i]));
      if ($('structure').value !== 'by-position' && !$('structure').disabled) $('structure').value = 'by-position';
    } else {
      for (const p of ps) vals[p.name] = v[p.name];
      if ($('structure').value !== 'by-name' && !$('structure').disabled) $('structure').value = 'by-name';
    }
    fillForm(vals);
  }
  validate();
}

// ---- validation: shown, never blocking ----

function validate() {
  const out = [];
  const text = $('params').value.trim();
  let v;
  if (text) {
    try {
      v = JSON.parse(text);
    } catch (e) {
      out.push(`params: not JSON (${e.message})`);
    }
  }
  const m = st.method;
  if (m && !out.length) {
    if (v !== undefined && (v === null || typeof v !== 'object')) out.push('params: must be an array or an object');
    else checkParams(m, v, out);
  }
  $('problems').replaceChildren(...out.map((t) => el('li', { textContent: t })));
  return out;
}

function checkParams(m, v, out) {
  const ps = m.params;
  const ps0 = m.paramStructure ?? 'either';
  if (Array.isArray(v) && ps0 === 'by-name') out.push('params: this method takes params by name (an object)');
  if (v && !Array.isArray(v) && ps0 === 'by-position') out.push('params: this method takes params by position (an array)');
  ps.forEach((p, i) => {
    const s = resolve(p.schema);
    if (p['x-variadic'] && Array.isArray(v)) {
      v.slice(i).forEach((x, j) => check(s, x, `${p.name}[${j}]`, out));
      return;
    }
    const has = Array.isArray(v) ? i < v.length : v != null && Object.hasOwn(v, p.name);
    if (!has) {
      if (p.required) out.push(`${p.name}: required`);
      return;
    }
    check(s, Array.isArray(v) ? v[i] : v[p.name], p.name, out);
  });
  const known = new Set(ps.map((p) => p.name));
  if (v && !Array.isArray(v)) for (const k of Object.keys(v)) if (!known.has(k)) out.push(`${k}: not a param of ${m.name}`);
  if (Array.isArray(v) && !ps.some((p) => p['x-variadic']) && v.length > ps.length) out.push(`params: at most ${ps.length}`);
}

const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// check is a small JSON Schema validator: the keywords OpenRPC documents use.
function check(s, v, path, out, depth = 0) {
  if (s === true || s == null || depth > 32) return;
  if (s === false) return void out.push(`${path}: no value allowed`);
  if (s.$ref) return check(resolve(s), v, path, out, depth + 1);
  const t = kind(v);
  if (s.type) {
    const ts = [].concat(s.type);
    if (!ts.some((x) => x === t || (x === 'number' && t === 'integer'))) return void out.push(`${path}: want ${ts.join(' or ')}, got ${t}`);
  }
  if (s.enum && !s.enum.some((e) => same(e, v))) out.push(`${path}: not one of ${JSON.stringify(s.enum)}`);
  if ('const' in s && !same(s.const, v)) out.push(`${path}: must be ${JSON.stringify(s.const)}`);
  if (typeof v === 'number') {
    if (s.minimum !== undefined && v < s.minimum) out.push(`${path}: below the minimum ${s.minimum}`);
    if (s.maximum !== undefined && v > s.maximum) out.push(`${path}: above the maximum ${s.maximum}`);
    if (typeof s.exclusiveMinimum === 'number' && v <= s.exclusiveMinimum) out.push(`${path}: must be > ${s.exclusiveMinimum}`);
    if (typeof s.exclusiveMaximum === 'number' && v >= s.exclusiveMaximum) out.push(`${path}: must be < ${s.exclusiveMaximum}`);
    if (s.multipleOf && !Number.isInteger(v / s.multipleOf)) out.push(`${path}: not a multiple of ${s.multipleOf}`);
  }
  if (typeof v === 'string') {
    const n = [...v].length;
    if (s.minLength !== undefined && n < s.minLength) out.push(`${path}: shorter than ${s.minLength}`);
    if (s.maxLength !== undefined && n > s.maxLength) out.push(`${path}: longer than ${s.maxLength}`);
    try {
      if (s.pattern && !new RegExp(s.pattern, 'u').test(v)) out.push(`${path}: does not match ${s.pattern}`);
    } catch {}
  }
  if (t === 'array') {
    if (s.minItems !== undefined && v.length < s.minItems) out.push(`${path}: fewer than ${s.minItems} items`);
    if (s.maxItems !== undefined && v.length > s.maxItems) out.push(`${path}: more than ${s.maxItems} items`);
    const tuple = Array.isArray(s.items) ? s.items : s.prefixItems;
    const rest = Array.isArray(s.items) ? s.additionalItems : s.prefixItems ? s.items : s.items;
    v.forEach((x, i) => check(tuple && i < tuple.length ? tuple[i] : rest, x, `${path}[${i}]`, out, depth + 1));
    if (s.uniqueItems && new Set(v.map((x) => JSON.stringify(x))).size !== v.length) out.push(`${path}: items not unique`);
  }
  if (t === 'object') {
    for (const k of s.required ?? []) if (!Object.hasOwn(v, k)) out.push(`${path}.${k}: required`);
    for (const [k, x] of Object.entries(v)) {
      if (s.properties && Object.hasOwn(s.properties, k)) check(s.properties[k], x, `${path}.${k}`, out, depth + 1);
      else if (s.additionalProperties === false) out.push(`${path}.${k}: not allowed`);
      else if (typeof s.additionalProperties === 'object') check(s.additionalProperties, x, `${path}.${k}`, out, depth + 1);
    }
  }
  for (const x of s.allOf ?? []) check(x, v, path, out, depth + 1);
  for (const key of ['anyOf', 'oneOf']) {
    if (s[key] && !s[key].some((x) => { const o = []; check(x, v, path, o, depth + 1); return !o.length; })) {
      out.push(`${path}: matches none of ${key}`);
    }
  }
}

// ---- transports ----

async function post(msg) {
  const t0 = performance.now();
  const r = await fetch(st.rpcURL, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(msg) });
  const text = await r.text();
  return { status: r.status, text, ms: performance.now() - t0 };
}

function connectWS() {
  if (st.wsOpen) return st.wsOpen;
  st.wsOpen = new Promise((ok, fail) => {
    const ws = new WebSocket(st.wsURL);
    ws.onopen = () => { st.ws = ws; wsState('connected'); ok(ws); };
    ws.onerror = () => fail(new Error('WebSocket error'));
    ws.onclose = (ev) => {
      wsState(`closed${ev.code ? ` (${ev.code})` : ''}`);
      st.ws = st.wsOpen = null;
      for (const p of new Set(st.pending.values())) p.fail(new Error('WebSocket closed'));
      st.pending.clear();
      fail(new Error('WebSocket closed'));
    };
    ws.onmessage = (ev) => inbound(ev.data);
  });
  return st.wsOpen;
}

const wsState = (s) => ($('ws-state').textContent = `ws: ${s}`);
const isResponse = (m) => m && typeof m === 'object' && !('method' in m) && ('result' in m || 'error' in m);

// inbound handles a WebSocket message: a response to a pending call, or a
// message the server sent on its own.
function inbound(text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    return shown(text);
  }
  const members = Array.isArray(msg) ? msg : [msg];
  const p = members.length && members.every(isResponse) ? st.pending.get(JSON.stringify(members[0].id)) : null;
  if (!p) return shown(JSON.stringify(msg), msg);
  for (const m of members) st.pending.delete(JSON.stringify(m.id));
  p.got.push(...members);
  if (p.got.length >= p.need) p.done(Array.isArray(msg) || p.batch ? JSON.stringify(p.got) : text);
}

function shown(text, msg) {
  const li = el('li', { textContent: text, title: new Date().toLocaleTimeString() });
  $('notifications').append(li);
  li.scrollIntoView({ block: 'nearest' });
  // A call from the server: no method here answers it.
  if (msg && !Array.isArray(msg) && msg.method && 'id' in msg) {
    st.ws?.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } }));
  }
}

async function viaWS(msg) {
  const ws = await connectWS();
  const t0 = performance.now();
  const calls = (Array.isArray(msg) ? msg : [msg]).filter((m) => m && 'id' in m);
  const done = new Promise((ok, fail) => {
    if (!calls.length) return ok('');
    const p = { need: calls.length, got: [], batch: Array.isArray(msg), done: ok, fail };
    for (const c of calls) st.pending.set(JSON.stringify(c.id), p);
  });
  ws.send(JSON.stringify(msg));
  const text = await done;
  return { status: text ? 'ws' : 'sent', text, ms: performance.now() - t0 };
}

// ---- sending ----

function message(withId) {
  const method = $('method').value.trim();
  if (!method) {
    $('problems').replaceChildren(el('li', { textContent: 'no method' }));
    return null;
  }
  const text = $('params').value.trim();
  const m = { jsonrpc: '2.0', method };
  if (text) {
    try {
      m.params = JSON.parse(text);
    } catch (e) {
      $('problems').replaceChildren(el('li', { textContent: `params: not JSON (${e.message}); not sent` }));
      return null;
    }
  }
  if (withId) m.id = st.nextId++;
  return m;
}

async function run(msg, transport = $('transport').value) {
  show({ status: '…', text: '', ms: 0 });
  let r;
  try {
    r = transport === 'ws' ? await viaWS(msg) : await post(msg);
  } catch (e) {
    r = { status: 'failed', text: String(e.message ?? e), ms: 0, failed: true };
  }
  show(r);
  remember(msg, transport, r);
}

function show(r) {
  let text = r.text;
  let err;
  try {
    const v = JSON.parse(text);
    text = JSON.stringify(v, null, 2);
    if (v && !Array.isArray(v) && v.error) err = v.error;
  } catch {}
  $('response').textContent = text;
  $('status').textContent = typeof r.status === 'number' ? `HTTP ${r.status}` : r.status;
  $('time').textContent = r.ms ? `${r.ms.toFixed(1)} ms` : '';
  $('error-code').hidden = !err;
  $('error-code').textContent = err ? String(err.code) : '';
  $('error-name').textContent = err ? codeName(err.code) : '';
}

function codeName(code) {
  const known = CODES[String(code)] ?? st.method?.errors?.find((e) => e.code === code)?.message;
  return known ?? (code <= -32000 && code >= -32099 ? 'Server error' : 'Error');
}

// ---- history and "copy as" ----

function remember(msg, transport, r) {
  const name = Array.isArray(msg) ? `batch of ${msg.length}` : msg.method;
  let outcome = r.failed ? 'failed' : r.text ? 'ok' : String(r.status);
  try {
    const v = JSON.parse(r.text);
    if (v?.error) outcome = `error ${v.error.code}`;
  } catch {}
  const btn = (label, f) => el('button', { textContent: label, onclick: f, type: 'button' });
  const li = el('li', {}, el('code', { textContent: name }), ` ${transport} · ${outcome}`,
    btn('run again', () => rerun(msg, transport)), btn('curl', () => copy(curl(msg))), btn('jetrpc call', () => copy(jetrpcCall(msg))));
  li.dataset.method = name;
  if (outcome.startsWith('error') || r.failed) li.classList.add('e');
  $('history').prepend(li);
}

function rerun(msg, transport) {
  const fresh = (m) => ('id' in m ? { ...m, id: st.nextId++ } : m);
  const again = Array.isArray(msg) ? msg.map(fresh) : fresh(msg);
  if (!Array.isArray(msg)) {
    $('method').value = msg.method;
    $('params').value = msg.params === undefined ? '' : JSON.stringify(msg.params);
    syncForm();
  }
  $('transport').value = transport;
  return run(again, transport);
}

const sh = (s) => `'${String(s).replaceAll("'", `'\\''`)}'`;

// curl goes straight to an HTTP target, else through this page's server.
function curl(msg) {
  const url = /^https?:/.test(st.cfg.target ?? '') ? st.cfg.target : st.rpcURL;
  return `curl -sS -H 'Content-Type: application/json' --data-binary ${sh(JSON.stringify(msg))} ${sh(url)}`;
}

function jetrpcCall(msg) {
  if (Array.isArray(msg)) return '# jetrpc call sends one call or notification; use curl for a batch';
  const t = st.cfg.target || st.rpcURL;
  const flag = /^wss?:/.test(t) ? `--ws ${t}` : t.startsWith('tcp://') ? `--tcp ${t.slice(6)}` : `--http ${t}`;
  const notify = 'id' in msg ? '' : ' --notify';
  const params = msg.params === undefined ? '' : ` ${sh(JSON.stringify(msg.params))}`;
  return `jetrpc call ${flag}${notify} ${sh(msg.method)}${params}`;
}

function copy(text) {
  $('copy').textContent = text;
  navigator.clipboard?.writeText(text).catch(() => {});
}

// ---- the batch ----

function renderBatch() {
  $('batch-count').textContent = String(st.batch.length);
  $('batch').replaceChildren(...st.batch.map((m) => el('li', { textContent: `${m.method} ${m.params === undefined ? '' : JSON.stringify(m.params)}` })));
}

// ---- start ----

function wire() {
  $('filter').oninput = renderMethods;
  $('params').oninput = syncForm;
  $('structure').onchange = syncJSON;
  $('method').oninput = () => {
    const m = st.methods.find((x) => x.name === $('method').value.trim());
    if (m && m !== st.method) return select(m);
    if (!m && st.method) {
      st.method = null;
      $('summary').textContent = $('description').textContent = '';
      $('form').replaceChildren();
      $('structure').disabled = false;
      renderMethods();
      validate();
    }
  };
  $('send').onclick = () => { const m = message(true); if (m) run(m); };
  $('notify').onclick = () => { const m = message(false); if (m) run(m); };
  $('batch-add').onclick = () => { const m = message(true); if (m) { st.batch.push(m); renderBatch(); } };
  $('batch-send').onclick = () => {
    if (!st.batch.length) return;
    const b = st.batch;
    st.batch = [];
    renderBatch();
    run(b);
  };
  $('batch-clear').onclick = () => { st.batch = []; renderBatch(); };
  $('transport').onchange = () => { if ($('transport').value === 'ws') connectWS().catch(() => {}); };
}

async function main() {
  try {
    st.cfg = await (await fetch('config.json')).json();
  } catch {
    st.cfg = {};
  }
  st.rpcURL = new URL(st.cfg.rpc ?? '../', location).href;
  if (st.cfg.ws) {
    const u = new URL(st.cfg.ws, location);
    u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
    st.wsURL = u.href;
    wsState('not connected');
  } else {
    $('transport').options[1].disabled = true;
  }
  $('target').textContent = st.cfg.target || st.rpcURL;
  wire();
  await loadDocument();
  document.body.dataset.ready = 'true';
}

main();
