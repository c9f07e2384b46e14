// Drives tether with the Claude Agent SDK for TypeScript: `node drive_tether.mjs CASE CLI CWD`.
// Prints one JSON line per SDK message, then {"done": true, ...facts about the callbacks}.
import { query, tool, createSdkMcpServer } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";

const [which, cli, cwd] = process.argv.slice(2);
const facts = { asked: [], hooked: [], added: [] };
const base = { pathToClaudeCodeExecutable: cli, cwd, stderr: (d) => process.stderr.write(d) };

const cases = {
  // A one-shot query with a tool call.
  oneShot: () => ({ prompt: "run it", options: { ...base, permissionMode: "bypassPermissions" } }),
  // The permission callback allows with a changed input; a hook on Bash sees the call.
  callbacks: () => ({
    prompt: "touch it",
    options: {
      ...base,
      canUseTool: async (name, input) => {
        facts.asked.push([name, input]);
        return { behavior: "allow", updatedInput: { command: "touch changed" } };
      },
      hooks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [async (input) => (facts.hooked.push(input.tool_input), {})] },
        ],
      },
    },
  }),
  // An MCP server's form, answered by the program's onElicitation. `SERVER` as for setServers.
  elicit: () => {
    const [command, ...args] = JSON.parse(process.env.SERVER);
    return {
      prompt: "ask",
      options: {
        ...base,
        permissionMode: "bypassPermissions",
        mcpServers: { ask: { type: "stdio", command, args } },
        onElicitation: async (request) => {
          facts.asked.push(request);
          return { action: "accept", content: { colour: "violet" } };
        },
      },
    };
  },
  // An in-process MCP server, its tool called by the model through tether.
  sdkMcp: () => {
    const add = tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async (args) => {
      facts.added.push(args);
      return { content: [{ type: "text", text: String(args.a + args.b) }] };
    });
    return {
      prompt: "add",
      options: {
        ...base,
        mcpServers: { calc: createSdkMcpServer({ name: "calc", tools: [add] }) },
        allowedTools: ["mcp__calc__add"],
        systemPrompt: "You add numbers.",
      },
    };
  },
};

// The control requests of the TypeScript SDK's Query, between two prompts of one session.
async function controls() {
  let next;
  const ready = new Promise((resolve) => (next = resolve));
  async function* prompts() {
    yield { type: "user", message: { role: "user", content: "first" }, parent_tool_use_id: null };
    await ready;
    yield { type: "user", message: { role: "user", content: "second" }, parent_tool_use_id: null };
  }
  const q = query({ prompt: prompts(), options: { ...base, permissionMode: "default" } });
  facts.controls = {};
  let results = 0;
  for await (const message of q) {
    console.log(JSON.stringify(message));
    if (message.type !== "result") continue;
    results += 1;
    if (results === 2) break;
    const calls = {
      setMaxThinkingTokens: () => q.setMaxThinkingTokens(2000),
      applyFlagSettings: () => q.applyFlagSettings({ model: "claude-haiku-4-5" }),
      reloadSkills: () => q.reloadSkills(),
      setMcpServers: () => q.setMcpServers({}),
      backgroundTasks: () => q.backgroundTasks(),
      reinitialize: () => q.reinitialize(),
      setPermissionMode: () => q.setPermissionMode("bypassPermissions"),
    };
    for (const [name, call] of Object.entries(calls)) {
      try {
        facts.controls[name] = { ok: (await call()) ?? null };
      } catch (e) {
        facts.controls[name] = { error: String(e.message || e) };
      }
    }
    next();
  }
}

// Servers set while the session runs (`setMcpServers`): one added before the second prompt,
// removed before the third. `SERVER` is a stdio server's command line, as JSON.
async function setServers() {
  const [command, ...args] = JSON.parse(process.env.SERVER);
  const gates = [];
  const opened = [0, 1].map(() => new Promise((resolve) => gates.push(resolve)));
  async function* prompts() {
    for (const [i, words] of ["before", "with", "after"].entries()) {
      if (i > 0) await opened[i - 1];
      yield { type: "user", message: { role: "user", content: words }, parent_tool_use_id: null };
    }
  }
  const options = { ...base, permissionMode: "bypassPermissions" };
  const q = query({ prompt: prompts(), options });
  facts.set = [];
  let results = 0;
  for await (const message of q) {
    console.log(JSON.stringify(message));
    if (message.type !== "result") continue;
    results += 1;
    if (results === 3) break;
    const servers = results === 1 ? { p: { type: "stdio", command, args } } : {};
    facts.set.push(await q.setMcpServers(servers));
    gates[results - 1]();
  }
}

if (which === "controls") {
  await controls();
} else if (which === "setServers") {
  await setServers();
} else {
  for await (const message of query(cases[which]())) {
    console.log(JSON.stringify(message));
  }
}
console.log(JSON.stringify({ done: true, ...facts }));
