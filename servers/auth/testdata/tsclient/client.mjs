// The official TypeScript MCP SDK as an OAuth client of the fleet, driven by TestTypeScriptClient
// (servers/auth/e2e_ts_test.go): discovery from the 401, Dynamic Client Registration, the
// authorization code with PKCE (the Go test signs in with a passkey in Chromium and hands the
// code back on stdin), the token exchange, a tool call, a refresh, and a call with the refreshed
// token. Usage: node client.mjs MCP_URL REDIRECT_URL TOOL. Prints one JSON line per step.
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [serverURL, redirectURL, tool] = process.argv.slice(2);
if (!serverURL || !redirectURL || !tool) {
  console.error("usage: node client.mjs MCP_URL REDIRECT_URL TOOL");
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
};

async function connect() {
  const client = new Client({ name: "ts-sdk-e2e", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(serverURL), { authProvider: provider }));
  return client;
}

async function call(client, text) {
  const res = await client.callTool({ name: tool, arguments: { text } });
  if (res.isError) throw new Error("tool error: " + JSON.stringify(res.content));
  return res.structuredContent;
}

try {
  let client;
  try {
    client = await connect();
    throw new Error("connected without signing in");
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
  }
  const code = (await lines.next()).value; // the Go test signs in and sends the code
  const transport = new StreamableHTTPClientTransport(new URL(serverURL), { authProvider: provider });
  await transport.finishAuth(code.trim());
  client = await connect();
  say({ step: "call", result: await call(client, "first") });
  await client.close();

  // The access token goes bad (as one does after ten minutes): the SDK must refresh.
  const before = state.tokens.refresh_token;
  state.tokens = { ...state.tokens, access_token: "expired." + state.tokens.access_token };
  client = await connect();
  const after = await call(client, "after refresh");
  say({ step: "refreshed", rotated: state.tokens.refresh_token !== before, result: after });
  await client.close();
  say({ step: "done" });
  process.exit(0);
} catch (e) {
  say({ step: "error", message: String(e && e.stack || e) });
  process.exit(1);
}
