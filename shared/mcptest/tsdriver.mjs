// The official TypeScript MCP SDK's client, driven by a Go test (shared/mcptest/tsclient.go):
// it connects, then reads one JSON command a line on stdin and writes one JSON event a line on
// stdout. It declares form elicitation and answers each question with the action last set.
// Usage: node tsdriver.mjs http URL   (Streamable HTTP)
//        node tsdriver.mjs pipe       (newline-delimited JSON, as over stdio, on fds 3 and 4)
// Commands: {op:"list"} · {op:"call", id, name, arguments, timeout, reset, progress}
//           {op:"abort", id} · {op:"answer", action} · {op:"close"}
// Events:   ready {protocol, server} · tools {names} · progress {id, progress, message}
//           result {id, result} · error {id, message, code} · asked {message} · closed
//           warning {message} (what the SDK reports through onerror)
import net from "node:net";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");

// PipeTransport is the SDK's stdio framing on two inherited pipes: the Go test serves the
// server in its own process on their other ends, as a client that spawns a server reaches it.
class PipeTransport {
  constructor() {
    this.buffer = new ReadBuffer();
    this.protocolVersion = undefined;
  }
  async start() {
    this.out = new net.Socket({ fd: 4, readable: false, writable: true });
    this.in = new net.Socket({ fd: 3, readable: true, writable: false });
    this.in.on("data", (chunk) => {
      this.buffer.append(chunk);
      for (let m; (m = this.buffer.readMessage()) !== null;) this.onmessage?.(m);
    });
    this.in.on("end", () => this.onclose?.());
    this.in.on("error", (e) => this.onerror?.(e));
  }
  setProtocolVersion(v) { this.protocolVersion = v; }
  async send(message) {
    await new Promise((resolve, reject) => this.out.write(serializeMessage(message), (e) => (e ? reject(e) : resolve())));
  }
  async close() {
    this.out.end();
    this.in.destroy();
    this.onclose?.();
  }
}

const [kind, url] = process.argv.slice(2);
let transport;
if (kind === "http" && url) {
  transport = new StreamableHTTPClientTransport(new URL(url));
} else if (kind === "pipe") {
  transport = new PipeTransport();
} else {
  console.error("usage: node tsdriver.mjs http URL | pipe");
  process.exit(2);
}

const client = new Client({ name: "ts-sdk-driver", version: "0" }, { capabilities: { elicitation: { form: {} } } });
client.onerror = (e) => say({ event: "warning", message: String(e?.message ?? e) });
let answer = "decline";
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  say({ event: "asked", message: req.params.message });
  return { action: answer, ...(answer === "accept" ? { content: {} } : {}) };
});

const calls = new Map(); // id → AbortController

async function call(c) {
  const ctl = new AbortController();
  calls.set(c.id, ctl);
  const options = { signal: ctl.signal };
  if (c.timeout) options.timeout = c.timeout;
  if (c.reset) options.resetTimeoutOnProgress = true;
  if (c.progress) options.onprogress = (p) => say({ event: "progress", id: c.id, progress: p.progress, message: p.message });
  try {
    const result = await client.callTool({ name: c.name, arguments: c.arguments ?? {} }, undefined, options);
    say({ event: "result", id: c.id, result });
  } catch (e) {
    say({ event: "error", id: c.id, message: String(e?.message ?? e), code: e?.code });
  } finally {
    calls.delete(c.id);
  }
}

try {
  await client.connect(transport);
  say({ event: "ready", protocol: transport.protocolVersion, server: client.getServerVersion() });
} catch (e) {
  say({ event: "error", id: "connect", message: String(e?.stack ?? e) });
  process.exit(1);
}

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  switch (c.op) {
    case "list":
      client.listTools().then(
        (r) => say({ event: "tools", names: r.tools.map((t) => t.name) }),
        (e) => say({ event: "error", id: "list", message: String(e?.message ?? e), code: e?.code }));
      break;
    case "call":
      call(c);
      break;
    case "abort":
      calls.get(c.id)?.abort("the Go test aborted it");
      break;
    case "answer":
      answer = c.action;
      break;
    case "close":
      await client.close();
      say({ event: "closed" });
      break;
    default:
      say({ event: "error", id: "command", message: "unknown op " + c.op });
  }
}
await client.close().catch(() => {});
process.exit(0);
