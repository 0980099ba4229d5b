// The official TypeScript MCP SDK as an OAuth client of the fleet, driven by TestTypeScriptClient
// (servers/auth/e2e_ts_test.go): discovery from the 401, Dynamic Client Registration, the
// authorization code with PKCE (the Go test signs in with a passkey in Chromium, allowing read
// only, and hands the code back on stdin), the token exchange, a read call, a refresh, then a
// write call the read grant refuses: the SDK refreshes rather than asking again and gives up;
// once the owner revokes the grant (the Go test, then a line on stdin) the SDK's refresh fails,
// it asks again, and with write allowed the call works.
// Usage: node client.mjs MCP_URL REDIRECT_URL READ_TOOL WRITE_TOOL. Prints one JSON line per step.
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [serverURL, redirectURL, readTool, writeTool] = process.argv.slice(2);
if (!serverURL || !redirectURL || !readTool || !writeTool) {
  console.error("usage: node client.mjs MCP_URL REDIRECT_URL READ_TOOL WRITE_TOOL");
  process.exit(2);
}
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

// An in-memory provider, as a real client's would be, recording what the SDK does.
const state = { client: undefined, tokens: undefined, verifier: "", saves: [] };
const provider = {
  get redirectUrl() { return redirectURL; },
  get clientMetadata() {
    return { client_name: "TypeScript SDK E2E", redirect_uris: [redirectURL], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none" };
  },
  clientInformation() { return state.client; },
  saveClientInformation(info) { state.client = info; say({ step: "registered", client_id: info.client_id }); },
  tokens() { return state.tokens; },
  saveTokens(t) { state.tokens = t; state.saves.push(t); say({ step: "tokens", scope: t.scope, refresh: Boolean(t.refresh_token) }); },
  redirectToAuthorization(url) { say({ step: "authorize", url: url.toString() }); },
  saveCodeVerifier(v) { state.verifier = v; },
  codeVerifier() { return state.verifier; },
  invalidateCredentials(scope) {
    say({ step: "invalidated", scope });
    if (scope === "all" || scope === "tokens") state.tokens = undefined;
    if (scope === "all" || scope === "client") state.client = undefined;
    if (scope === "all" || scope === "verifier") state.verifier = "";
  },
};

async function connect() {
  const client = new Client({ name: "ts-sdk-e2e", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(serverURL), { authProvider: provider }));
  return client;
}

async function call(client, tool, text) {
  const res = await client.callTool({ name: tool, arguments: { text } });
  if (res.isError) throw new Error("tool error: " + JSON.stringify(res.content));
  return res.structuredContent;
}

// signIn completes an authorization the SDK started: the Go test sends the code.
async function signIn() {
  const code = (await lines.next()).value;
  const transport = new StreamableHTTPClientTransport(new URL(serverURL), { authProvider: provider });
  await transport.finishAuth(code.trim());
}

// expectSignIn runs fn, which must end in the SDK asking for a new authorization.
async function expectSignIn(fn) {
  try {
    await fn();
  } catch (e) {
    if (e instanceof UnauthorizedError) return signIn();
    throw e;
  }
  throw new Error("no sign-in was asked for");
}

try {
  await expectSignIn(connect);
  let client = await connect();
  say({ step: "call", result: await call(client, readTool, "first") });
  await client.close();

  // The access token goes bad (as one does after ten minutes): the SDK must refresh.
  const before = state.tokens.refresh_token;
  state.tokens = { ...state.tokens, access_token: "expired." + state.tokens.access_token };
  client = await connect();
  const after = await call(client, readTool, "after refresh");
  say({ step: "refreshed", rotated: state.tokens.refresh_token !== before, result: after });

  // More scope than granted: the SDK refreshes (same scope) instead of asking, then gives up.
  try {
    await call(client, writeTool, "needs write");
    throw new Error("a write call worked with a read grant");
  } catch (e) {
    say({ step: "upscope", message: String(e.message || e) });
  }
  await client.close();

  // The owner revokes the grant on the host; the next refresh fails and the SDK asks again.
  await lines.next();
  await expectSignIn(async () => {
    const c = await connect();
    try {
      await call(c, writeTool, "after revoke");
    } finally {
      await c.close();
    }
  });
  client = await connect();
  say({ step: "write", result: await call(client, writeTool, "with write") });
  await client.close();
  say({ step: "done" });
  process.exit(0);
} catch (e) {
  say({ step: "error", message: String(e && e.stack || e) });
  process.exit(1);
}
