// MCP authorization (revision 2025-11-25's "Authorization" section, the
// same at 2026-07-28) end to end: "jetrpc serve --mcp --mcp-auth-issuer" as
// the OAuth 2.1 resource server, oidc-provider (a certified OpenID provider
// nobody here wrote) as the authorization server, and the official MCP
// TypeScript SDK clients (@modelcontextprotocol/sdk at 2025-11-25 with a
// session, @modelcontextprotocol/client pinned to 2026-07-28) with their
// OAuth client provider.
//
// The provider runs in this process: the authorization code flow with PKCE,
// dynamic client registration, and JWT access tokens for the resource
// indicator (RFC 8707) the client sends, which is jetrpc's /mcp. Its user
// agent is headless: the client's redirectToAuthorization follows the
// redirects with a cookie jar, and the provider's interaction (login, then
// consent to exactly the scopes asked for) finishes itself.
//
// Each client goes: 401 (WWW-Authenticate names the protected resource
// metadata and scope "mcp"), discovery (RFC 9728 metadata, then the
// provider's OpenID metadata), registration, authorization, token
// exchange, tools/list (without "add", which needs "mcp math") and a tool
// call; then "add": 403 insufficient_scope, re-authorization with "mcp
// math" (step-up), and the call succeeds. Last, the provider rotates its
// signing key (a new instance on the same address, the new key first):
// jetrpc accepts the new tokens without a restart and the old one still.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { generateKeyPairSync } from 'node:crypto';

import Provider from 'oidc-provider';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError as UnauthorizedV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedV2 } from '@modelcontextprotocol/client';

import serverHelpers from './server.js';

const { startServer, stopServer } = serverHelpers;
const TEST_MS = 60_000;
const REDIRECT = 'http://127.0.0.1:1/callback'; // never fetched: the user agent stops there

function signingKey(kid) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
}

// startProvider runs oidc-provider on port (0: any) with keys, and
// resolves with { issuer, port, close }.
async function startProvider(port, keys) {
  const server = http.createServer();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    jwks: { keys },
    cookies: { keys: ['interop-cookie-key'] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 3600 },
    findAccount: (ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    scopes: ['openid', 'mcp', 'math'],
    pkce: { required: () => true },
    clientDefaults: { grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
    // The SDK registers with the scope of its first challenge ("mcp");
    // oidc-provider would then allow that client no other scope, and no
    // step-up. Like most authorization servers, this one lets a registered
    // client ask for any scope it serves (a hook that may change the
    // metadata being registered).
    extraClientMetadata: {
      properties: ['interop_note'],
      validator: (ctx, key, value, metadata) => {
        delete metadata.scope;
      },
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (ctx, client, oneOf) => oneOf ?? undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource) => ({
          scope: 'mcp math',
          audience: resource,
          accessTokenTTL: 3600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  const callback = provider.callback();
  server.on('request', async (req, res) => {
    if (!req.url.startsWith('/interaction/')) {
      callback(req, res);
      return;
    }
    try {
      // The user: logs in as alice, then consents to what the client asked.
      const details = await provider.interactionDetails(req, res);
      let result;
      if (details.prompt.name === 'login') {
        result = { login: { accountId: 'alice' } };
      } else {
        const grant = details.grantId
          ? await provider.Grant.find(details.grantId)
          : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
        const { missingOIDCScope, missingResourceScopes } = details.prompt.details;
        if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
        for (const [resource, scopes] of Object.entries(missingResourceScopes ?? {})) {
          grant.addResourceScope(resource, scopes.join(' '));
        }
        result = { consent: { grantId: await grant.save() } };
      }
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  });
  return {
    issuer,
    port: server.address().port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

// userAgent follows the authorization URL's redirects, with cookies, to
// the client's redirect URI, and returns its query (code, iss).
async function userAgent(url) {
  const jar = new Map();
  let next = url.toString();
  for (let i = 0; i < 20; i++) {
    if (next.startsWith(REDIRECT)) {
      const u = new URL(next);
      assert.equal(u.searchParams.get('error'), null, `authorization failed: ${next}`);
      return u.searchParams;
    }
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(next, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const c of res.headers.getSetCookie()) {
      const kv = c.split(';')[0];
      const eq = kv.indexOf('=');
      jar.set(kv.slice(0, eq), kv.slice(eq + 1));
    }
    const body = await res.text();
    const loc = res.headers.get('location');
    assert.ok(loc, `the authorization stopped at ${next}: ${res.status} ${body.slice(0, 300)}`);
    next = new URL(loc, next).toString();
  }
  throw new Error('too many redirects');
}

// oauthClient is the SDK's OAuthClientProvider: dynamic registration, PKCE,
// the headless user agent. authorizations counts the codes it obtained;
// scopes the scope each authorization asked for.
function oauthClient() {
  const state = { info: undefined, tokens: undefined, verifier: undefined, callback: undefined, scopes: [] };
  return {
    memo: state,
    get redirectUrl() {
      return REDIRECT;
    },
    get clientMetadata() {
      return {
        client_name: 'jetrpc-oauth-interop',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
    },
    clientInformation: () => state.info,
    saveClientInformation: (info) => {
      state.info = info;
    },
    tokens: () => state.tokens,
    saveTokens: (tokens) => {
      state.tokens = tokens;
    },
    saveCodeVerifier: (v) => {
      state.verifier = v;
    },
    codeVerifier: () => state.verifier,
    saveDiscoveryState: (d) => {
      state.discovery = d;
    },
    discoveryState: () => state.discovery,
    redirectToAuthorization: async (url) => {
      state.scopes.push(url.searchParams.get('scope'));
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      state.callback = await userAgent(url);
    },
  };
}

// recorder is a fetch that records each response's status and challenge.
function recorder() {
  const seen = [];
  const f = async (input, init) => {
    const res = await fetch(input, init);
    seen.push({ url: String(input), status: res.status, challenge: res.headers.get('www-authenticate') });
    return res;
  };
  return { seen, fetch: f };
}

function claimsOf(token) {
  const [h, c] = token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
  return { header: h, claims: c };
}

// The two SDK lines, as each is driven.
const lines = [
  {
    name: '@modelcontextprotocol/sdk at 2025-11-25 (sessions)',
    version: '2025-11-25',
    Unauthorized: UnauthorizedV1,
    client: () => new ClientV1({ name: 'oauth-interop', version: '1.0.0' }),
    transport: (url, opts) => new TransportV1(url, opts),
    finish: (transport, callback) => transport.finishAuth(callback.get('code')),
  },
  {
    name: '@modelcontextprotocol/client pinned to 2026-07-28 (stateless)',
    version: '2026-07-28',
    Unauthorized: UnauthorizedV2,
    client: () =>
      new ClientV2({ name: 'oauth-interop', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } }),
    transport: (url, opts) => new TransportV2(url, opts),
    finish: (transport, callback) => transport.finishAuth(callback), // with iss (RFC 9207)
  },
];

describe('MCP authorization with oidc-provider and the MCP TypeScript SDK clients', { timeout: 4 * TEST_MS }, () => {
  let as;
  let server;
  let mcpURL;
  const k1 = signingKey('k1');
  const k2 = signingKey('k2');
  const oldTokens = [];

  before(async () => {
    as = await startProvider(0, [k1]);
    server = await startServer(
      ['--mcp', '--tcp', '', '--http', '127.0.0.1:0', '--mcp-auth-issuer', as.issuer,
        '--mcp-scope', '*=mcp', '--mcp-scope', 'add=mcp math', '--mcp-jwks-refresh', '1s'],
      'http',
    );
    mcpURL = new URL(`http://${server.host}:${server.port}/mcp`);
  });

  after(async () => {
    if (server) {
      const { code } = await stopServer(server);
      assert.equal(code, 0, server.log.join('\n'));
    }
    await as?.close();
  });

  // connect connects a fresh client, authorizing once (401 first).
  async function connect(line, provider, rec) {
    let transport = line.transport(mcpURL, { authProvider: provider, fetch: rec.fetch });
    let client = line.client();
    try {
      await client.connect(transport);
      assert.fail('connected without a token');
    } catch (err) {
      assert.ok(err instanceof line.Unauthorized, `want UnauthorizedError, got ${err?.stack ?? err}`);
    }
    await line.finish(transport, provider.memo.callback);
    await client.close().catch(() => {});
    transport = line.transport(mcpURL, { authProvider: provider, fetch: rec.fetch });
    client = line.client();
    await client.connect(transport);
    return { client, transport };
  }

  for (const line of lines) {
    it(`${line.name}: 401, discovery, registration, authorization, token, call; step-up`, { timeout: TEST_MS }, async () => {
      const provider = oauthClient();
      const rec = recorder();
      const { client, transport } = await connect(line, provider, rec);
      try {
        const first = rec.seen.find((r) => r.url === mcpURL.href);
        assert.equal(first.status, 401);
        const meta = `http://${server.host}:${server.port}/.well-known/oauth-protected-resource/mcp`;
        assert.equal(first.challenge, `Bearer resource_metadata="${meta}", scope="mcp"`);
        assert.ok(rec.seen.some((r) => r.url === meta && r.status === 200), 'the client read the protected resource metadata');
        assert.ok(provider.memo.info?.client_id, 'the client registered');
        assert.deepEqual(provider.memo.scopes, ['mcp']);
        const { header, claims } = claimsOf(provider.memo.tokens.access_token);
        assert.equal(header.typ, 'at+jwt');
        assert.equal(header.kid, 'k1');
        assert.equal(claims.iss, as.issuer);
        assert.equal(claims.aud, mcpURL.href);
        assert.equal(claims.scope, 'mcp');
        oldTokens.push(provider.memo.tokens.access_token);
        if (line.version === '2025-11-25') {
          assert.equal(transport.protocolVersion, '2025-11-25');
          assert.ok(transport.sessionId, 'a session');
        }

        const names = async () => (await client.listTools()).tools.map((t) => t.name).sort();
        assert.ok(!(await names()).includes('add'), 'add needs "mcp math"');
        assert.ok((await names()).includes('echo'));
        const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
        assert.equal(echo.content[0].text, 'hi');

        // Step-up: 403 insufficient_scope, the client re-authorizes.
        await assert.rejects(client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }), (err) => err instanceof line.Unauthorized);
        const refused = rec.seen.findLast((r) => r.status === 403);
        assert.equal(refused.challenge, `Bearer error="insufficient_scope", scope="mcp math", resource_metadata="${meta}"`);
        assert.deepEqual(provider.memo.scopes, ['mcp', 'mcp math']);
        await line.finish(transport, provider.memo.callback);
        assert.equal(claimsOf(provider.memo.tokens.access_token).claims.scope, 'mcp math');
        const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
        assert.deepEqual(sum.structuredContent, { sum: 5 });
        assert.ok((await names()).includes('add'), 'tools/list with "mcp math" has add');
      } finally {
        await client.close();
      }
    });
  }

  it('key rotation: new tokens are accepted without a restart, old ones still', { timeout: TEST_MS }, async () => {
    assert.ok(oldTokens.length > 0, 'the flows above ran');
    await as.close();
    as = await startProvider(as.port, [k2, k1]); // the new key signs; the old one is still published
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past --mcp-jwks-refresh
    const line = lines[1];
    const provider = oauthClient();
    const rec = recorder();
    const { client } = await connect(line, provider, rec);
    try {
      assert.equal(claimsOf(provider.memo.tokens.access_token).header.kid, 'k2');
      const echo = await client.callTool({ name: 'echo', arguments: { text: 'rotated' } });
      assert.equal(echo.content[0].text, 'rotated');
    } finally {
      await client.close();
    }
    // A token of the old key, unexpired, still works.
    const res = await fetch(mcpURL, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${oldTokens[0]}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
    const body = await res.text();
    assert.equal(res.status, 200, body);
    assert.match(body, /"name":"echo"/);
  });
});
