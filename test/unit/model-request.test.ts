import { describe, expect, it } from "vitest";
import { decideRequest, forceToolUse, payloadShape, type PayloadShape } from "../../modules/model-requests/payload.ts";

const schema = { type: "object", properties: { i: { type: "string" } }, required: ["i"] };

/** As OMP 18.2.3 sends openai-completions (recipe §4). */
const chat = {
  model: "fake",
  messages: [
    { role: "system", content: "system" },
    { role: "user", content: [{ type: "text", text: "hi" }] },
  ],
  stream: true,
  stream_options: { include_usage: true },
  store: false,
  tools: [
    { type: "function", function: { name: "bash", description: "run", parameters: schema } },
    { type: "function", function: { name: "read", description: "read", parameters: schema } },
  ],
  max_completion_tokens: 4096,
};

const responses = {
  model: "gpt-5",
  instructions: "system",
  input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }],
  tools: [{ type: "function", name: "bash", description: "run", parameters: schema, strict: false }],
  stream: true,
};

const anthropic = {
  model: "claude",
  max_tokens: 4096,
  system: [{ type: "text", text: "system" }],
  messages: [{ role: "user", content: "hi" }],
  tools: [{ name: "bash", description: "run", input_schema: schema }],
};

const SHAPES: [string, unknown, PayloadShape][] = [
  ["chat completions", chat, "openai-chat"],
  ["chat completions with a custom tool", { ...chat, tools: [...chat.tools, { type: "custom", custom: { name: "patch" } }] }, "openai-chat"],
  ["responses", responses, "openai-responses"],
  ["responses with a string input", { ...responses, input: "hi" }, "openai-responses"],
  ["responses with a built-in tool beside functions", { ...responses, tools: [...responses.tools, { type: "web_search" }] }, "openai-responses"],
  ["codex websocket frame", { type: "response.create", ...responses }, "openai-responses"],
  ["anthropic messages", anthropic, "anthropic-messages"],
  ["anthropic with a server tool", { ...anthropic, tools: [...anthropic.tools, { type: "web_search_20250305", name: "web_search" }] }, "anthropic-messages"],
  ["chat without tools", { model: "m", messages: chat.messages }, "no-tools"],
  ["chat with an empty tool list", { ...chat, tools: [] }, "no-tools"],
  ["anthropic with tools: null", { ...anthropic, tools: null }, "no-tools"],
  ["google generateContent", { model: "gemini", contents: [], config: { tools: [{ functionDeclarations: [{ name: "bash" }] }] } }, "unknown"],
  ["bedrock converse", { modelId: "x", messages: [], toolConfig: { tools: [{ toolSpec: { name: "bash" } }] } }, "unknown"],
  ["tools that are not a list", { messages: [], tools: { bash: {} } }, "unknown"],
  ["function tools without messages or input", { tools: chat.tools }, "unknown"],
  ["flat function tools with messages", { messages: [], tools: responses.tools }, "unknown"],
  ["a string", "payload", "unknown"],
  ["null", null, "unknown"],
];

describe("payloadShape", () => {
  it.each(SHAPES)("recognises %s", (_name, payload, shape) => {
    expect(payloadShape(payload)).toBe(shape);
  });
});

describe("forceToolUse", () => {
  it("sets tool_choice required on a new chat payload", () => {
    const out = forceToolUse(chat, "openai-chat") as Record<string, unknown>;
    expect(out).not.toBe(chat);
    expect(out.tool_choice).toBe("required");
    expect(out.messages).toBe(chat.messages);
    expect("tool_choice" in chat).toBe(false);
  });

  it("sets tool_choice required on a responses payload", () => {
    expect(forceToolUse(responses, "openai-responses")).toEqual({ ...responses, tool_choice: "required" });
  });

  it.each(["anthropic-messages", "no-tools", "unknown"] as const)("leaves %s unchanged", (shape) => {
    expect(forceToolUse(anthropic, shape)).toBe(anthropic);
  });

  it("keeps a request that asks for no tool, or already names one", () => {
    const none = { ...chat, tool_choice: "none" };
    expect(forceToolUse(none, "openai-chat")).toBe(none);
    const named = { ...chat, tool_choice: { type: "function", function: { name: "bash" } } };
    expect(forceToolUse(named, "openai-chat")).toBe(named);
  });

  it("replaces tool_choice auto", () => {
    expect(forceToolUse({ ...chat, tool_choice: "auto" }, "openai-chat")).toMatchObject({ tool_choice: "required" });
  });
});

describe("decideRequest", () => {
  it.each(["refuse", "none-yet"] as const)("forces OpenAI shapes on %s", (verdict) => {
    for (const [payload, shape] of [[chat, "openai-chat"], [responses, "openai-responses"]] as const) {
      const decision = decideRequest(payload, verdict);
      expect(decision).toEqual({ payload: { ...payload, tool_choice: "required" }, forced: true, shape });
    }
  });

  it("leaves every shape alone on pass", () => {
    for (const payload of [chat, responses, anthropic]) {
      const decision = decideRequest(payload, "pass");
      expect(decision.payload).toBe(payload);
      expect(decision.forced).toBe(false);
      expect(decision.limitation).toBeUndefined();
    }
  });

  it("never forces Anthropic or tool-less requests, and reports no limitation for them", () => {
    for (const payload of [anthropic, { messages: [] }]) {
      const decision = decideRequest(payload, "refuse");
      expect(decision.payload).toBe(payload);
      expect(decision.forced).toBe(false);
      expect(decision.limitation).toBeUndefined();
    }
  });

  it("sends unknown shapes unchanged with a limitation naming only top-level keys", () => {
    const google = { model: "gemini", contents: [{ parts: [{ text: "secret prompt" }] }], config: { tools: [{ functionDeclarations: [] }] } };
    const decision = decideRequest(google, "refuse");
    expect(decision.payload).toBe(google);
    expect(decision.forced).toBe(false);
    expect(decision.shape).toBe("unknown");
    expect(decision.limitation).toContain("top-level keys: config, contents, model");
    expect(decision.limitation).not.toContain("secret prompt");
  });

  it("does not count a request that asked for no tool as forced", () => {
    const none = { ...chat, tool_choice: "none" };
    expect(decideRequest(none, "refuse")).toEqual({ payload: none, forced: false, shape: "openai-chat" });
  });
});
