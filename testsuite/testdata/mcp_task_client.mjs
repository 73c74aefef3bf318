// mcp_task_client.mjs drives a plan as an MCP task over planmode serve's
// /mcp with the TypeScript MCP SDK's client (StreamableHTTPClientTransport,
// a bearer token), as a host that takes form elicitation: it calls
// plan_start as a task with the SDK's task API (callToolStream), and when
// tasks/result asks for the plan's selection it picks OPTION_ID, or the
// option the form offers as its default. It prints what it sees as JSON
// lines on standard output, one object each:
//
//	{"event":"taskCreated","task":{...}}     the task plan_start made
//	{"event":"taskStatus","task":{...}}      each task tasks/get answered
//	{"event":"elicit","message","requestedSchema","meta","answer"}
//	{"event":"retry","code","message"}       tasks/result ended unanswered
//	{"event":"result","result":{...}}        what tasks/result answered
//	{"event":"error","code","message"}       the stream's error, then exit 1
//
// With MCP_TRANSCRIPT set to a file, every JSON-RPC message the client
// sends (->) or receives (<-) is appended to it as a JSON line. The
// client lists the tools first, as a host does before it offers them: the
// SDK then checks what tasks/result answers against plan_start's output
// schema (the plan's id, and its Result once it ended).
//
// Usage: node mcp_task_client.mjs SDK_DIR URL TOKEN ARGUMENTS_JSON [OPTION_ID]
// SDK_DIR is the folder whose node_modules holds @modelcontextprotocol/sdk
// (.cache/mcp); ARGUMENTS_JSON is plan_start's arguments.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [sdkDir, url, token, argsJSON, optionId] = process.argv.slice(2);
if (!sdkDir || !url || !token || !argsJSON) {
  console.error("usage: node mcp_task_client.mjs SDK_DIR URL TOKEN ARGUMENTS_JSON [OPTION_ID]");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(sdkDir), "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { CallToolResultSchema, ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

// A plan outlives any one request: a worker's restart and a tasks/result
// that the server ends after its call timeout are waited through.
const timeout = 10 * 60 * 1000;
const requestOptions = { timeout, task: { ttl: 60000 } };
const maxRetries = 10;
// timedOut is the code of a tasks/result that ended before the plan did
// (the server's call timeout, or the SDK's request timeout).
const timedOut = -32001;

const emit = (event) => console.log(JSON.stringify(event));

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
if (process.env.MCP_TRANSCRIPT) {
  record(transport, process.env.MCP_TRANSCRIPT);
}

const client = new Client({ name: "e2e-ts-task", version: "0.0.0" },
  { capabilities: { elicitation: { form: {} } } });
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  const { message, requestedSchema, _meta } = request.params;
  const answer = { action: "accept",
    content: { optionId: optionId || requestedSchema?.properties?.optionId?.default } };
  emit({ event: "elicit", message, requestedSchema, meta: _meta ?? null, answer });
  return answer;
});
await client.connect(transport);
await client.listTools();

let taskId = "";
let last = null;
const stream = client.experimental.tasks.callToolStream(
  { name: "plan_start", arguments: JSON.parse(argsJSON) }, CallToolResultSchema, requestOptions);
for await (const message of stream) {
  switch (message.type) {
    case "taskCreated":
      taskId = message.task.taskId;
      emit({ event: "taskCreated", task: message.task });
      break;
    case "taskStatus":
      emit({ event: "taskStatus", task: message.task });
      break;
    default:
      last = message;
  }
}
// The stream ends on its first tasks/result: one the server ended before
// the plan did is asked again, as the server's error says to.
for (let i = 0; last?.type === "error" && last.error.code === timedOut && taskId && i < maxRetries; i++) {
  emit({ event: "retry", code: last.error.code, message: last.error.message });
  try {
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { timeout });
    last = { type: "result", result };
  } catch (error) {
    last = { type: "error", error };
  }
}
await transport.close();
if (last?.type !== "result") {
  emit({ event: "error", code: last?.error?.code ?? null, message: String(last?.error?.message ?? "no result") });
  process.exit(1);
}
emit({ event: "result", result: last.result });

// record appends every message transport sends and receives to file.
function record(transport, file) {
  const line = (dir, message) => fs.appendFileSync(file, JSON.stringify({ dir, message }) + "\n");
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    line("->", message);
    return send(message, options);
  };
  let handler;
  Object.defineProperty(transport, "onmessage", {
    get: () => handler && ((message, extra) => {
      line("<-", message);
      handler(message, extra);
    }),
    set: (h) => { handler = h; },
  });
}
