// The official TypeScript MCP SDK as a phone's assistant would use the fleet's front door,
// driven by TestTypeScriptFrontDoor (servers/auth/e2e_door_ts_test.go): one sign-in (discovery
// from the door's 401, Dynamic Client Registration, the authorization code with PKCE; the Go
// test signs in with a passkey in Chromium and hands the code back on stdin), then a tool of
// three servers called through the one URL. When the owner has switched evaluate off (the Go
// test, then a line on stdin), the door's list no longer has it and a call to it fails.
// Usage: node door.mjs DOOR_URL REDIRECT_URL. Prints one JSON line per step.
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [doorURL, redirectURL] = process.argv.slice(2);
if (!doorURL || !redirectURL) {
  console.error("usage: node door.mjs DOOR_URL REDIRECT_URL");
  process.exit(2);
}
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

const state = { client: undefined, tokens: undefined, verifier: "" };
const provider = {
  get redirectUrl() { return redirectURL; },
  get clientMetadata() {
    return { client_name: "Phone assistant (TypeScript SDK)", redirect_uris: [redirectURL], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none" };
  },
  clientInformation() { return state.client; },
  saveClientInformation(info) { state.client = info; say({ step: "registered", client_id: info.client_id }); },
  tokens() { return state.tokens; },
  saveTokens(t) { state.tokens = t; say({ step: "tokens", scope: t.scope, refresh: Boolean(t.refresh_token) }); },
  redirectToAuthorization(url) { say({ step: "authorize", url: url.toString() }); },
  saveCodeVerifier(v) { state.verifier = v; },
  codeVerifier() { return state.verifier; },
  invalidateCredentials(scope) { say({ step: "invalidated", scope }); },
};

async function connect() {
  const client = new Client({ name: "ts-sdk-door", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(doorURL), { authProvider: provider }));
  return client;
}

async function toolNames(client) {
  const names = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  return names.sort();
}

try {
  try {
    await connect();
    throw new Error("the front door let the client in without signing in");
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
  }
  const code = (await lines.next()).value;
  await new StreamableHTTPClientTransport(new URL(doorURL), { authProvider: provider }).finishAuth(code.trim());

  const client = await connect();
  say({ step: "listed", result: { tools: await toolNames(client) } });
  const calls = [
    ["evaluate", { expression: "6*7" }],
    ["create_note", { path: "phone/first", content: "written from the phone" }],
    ["run_command", { command: "echo from-the-phone" }],
  ];
  for (const [tool, args] of calls) {
    const res = await client.callTool({ name: tool, arguments: args });
    if (res.isError) throw new Error(tool + ": tool error " + JSON.stringify(res.content));
    say({ step: "call", message: tool, result: res.structuredContent });
  }

  // The owner switches evaluate off on the calculator (the Go test), then the door's list,
  // kept fresh for a few seconds, drops it.
  say({ step: "switch" });
  await lines.next();
  let tools = await toolNames(client);
  for (const end = Date.now() + 20000; tools.includes("evaluate") && Date.now() < end;) {
    await new Promise((r) => setTimeout(r, 200));
    tools = await toolNames(client);
  }
  say({ step: "after", result: { tools } });
  const res = await client.callTool({ name: "evaluate", arguments: { expression: "1+1" } }).catch((e) => ({ isError: true, content: [{ text: String(e.message || e) }] }));
  say({ step: "refused", message: res.isError ? JSON.stringify(res.content) : "", result: res.structuredContent || {} });
  await client.close();
  say({ step: "done" });
  process.exit(0);
} catch (e) {
  say({ step: "error", message: String(e && e.stack || e) });
  process.exit(1);
}
