// mcp_client.mjs drives `planmode mcp` with the TypeScript MCP SDK's
// client over stdio: it lists the tools and calls plan_status on a plan,
// then prints {"tools": [names], "status": structuredContent, "isError"}
// as one line of JSON.
//
// Usage: node mcp_client.mjs SDK_DIR PLAN_ID PLANMODE [ARGS...]
// SDK_DIR is the folder whose node_modules holds @modelcontextprotocol/sdk
// (.cache/mcp); PLANMODE and ARGS are the command the client starts.
import { createRequire } from "node:module";
import path from "node:path";

const [sdkDir, planId, command, ...args] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(sdkDir), "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "e2e-ts", version: "0.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const status = await client.callTool({ name: "plan_status", arguments: { planId } });
await client.close();
console.log(JSON.stringify({
  tools: tools.map((t) => t.name),
  status: status.structuredContent ?? null,
  isError: status.isError ?? false,
}));
