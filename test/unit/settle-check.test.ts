// The turn end OMP leaves unchecked while a background job runs (adapter/stop.ts
// onSettle): which settles Tama checks itself, and what a refusal and a pass do.
import { describe, expect, it } from "vitest";
import type { AdapterRuntime, Verdict } from "../../adapter/runtime.ts";
import { MAX_STOP_REFUSALS, SETTLE_REFUSAL_TYPE, Stops } from "../../adapter/stop.ts";
import type { ToolEvents } from "../../adapter/tool-events.ts";
import type { AgentEndEvent, OmpContext, SessionStopEvent } from "../../modules/omp/api.ts";

type Sent = { message: { customType: string; content: string; display: boolean }; options: unknown };

function harness(answer: () => Promise<Verdict>) {
  const asked: Record<string, unknown>[] = [];
  const notes: string[] = [];
  const sent: Sent[] = [];
  const runtime = {
    sessionId: () => "s1",
    basePayload: () => ({ session_id: "s1", cwd: "/w" }),
    verdict: (event: string, payload: Record<string, unknown>) => {
      asked.push({ event, ...payload });
      return answer();
    },
    notify: (message: string) => notes.push(message),
    refused: () => undefined,
  } as unknown as AdapterRuntime;
  const tools = { turnEnded: () => undefined, checksAnswered: async () => undefined } as unknown as ToolEvents;
  const stops = new Stops(runtime, tools, { sendMessage: (message, options) => sent.push({ message, options }) });
  return { stops, asked, notes, sent };
}

const block: () => Promise<Verdict> = async () => ({ result: { decision: "block", reason: "Your todo list still has 1 open task" } as Verdict["result"] });
const pass: () => Promise<Verdict> = async () => ({ result: { decision: "pass" } as Verdict["result"] });
let running = 1;
const ctx = (jobs: number, parentSession?: string): OmpContext =>
  ({
    cwd: "/w",
    hasUI: false,
    ui: { notify: () => undefined, setStatus: () => undefined },
    sessionManager: { getSessionId: () => "s1", getSessionFile: () => undefined, getHeader: () => (parentSession ? { parentSession } : {}) },
    getAsyncJobSnapshot: () => ({ running: Array.from({ length: jobs > 0 ? running : 0 }, (_, i) => ({ id: `bg_${i}` })) }),
  }) as OmpContext;
const settle = (willContinue?: boolean, stopReason = "stop"): AgentEndEvent => ({
  type: "agent_end",
  messages: [{ role: "user", content: "go" }, { role: "assistant", content: [{ type: "text", text: "all done, I think" }], stopReason }],
  ...(willContinue !== undefined ? { willContinue } : {}),
});
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("a settle OMP does not check", () => {
  it("is checked only where an answer ended while a job runs, with no session_stop before it", async () => {
    const { stops, asked } = harness(pass);
    stops.onSettle(settle(), ctx(1));
    stops.onSettle(settle(false), ctx(1));
    stops.onSettle(settle(true), ctx(0));
    // A retry after an error, a cut-off answer: OMP goes on by itself, for another reason.
    stops.onSettle(settle(true, "error"), ctx(1));
    stops.onSettle(settle(true, "length"), ctx(1));
    await stops.onStop({ type: "session_stop", session_id: "s1", stop_hook_active: false } as SessionStopEvent, ctx(1));
    stops.onSettle(settle(true), ctx(1));
    expect(asked.map((a) => a.event)).toEqual(["stop"]);
    // A forked session's header names its parent too: it is checked as any main session.
    stops.onSettle(settle(true), ctx(1, "/parent.jsonl"));
    await flush();
    expect(asked.length).toBe(2);
    expect(asked[1]).toMatchObject({ event: "stop", session_id: "s1", stop_hook_active: false, last_assistant_message: "all done, I think" });
  });

  it("refused: the reason starts the next run as OMP's own continuation does; passed: nothing is sent", async () => {
    const refused = harness(block);
    refused.stops.onSettle(settle(true), ctx(1));
    await flush();
    expect(refused.sent).toEqual([
      {
        message: { customType: SETTLE_REFUSAL_TYPE, content: expect.stringMatching(/^Your todo list still has 1 open task\n\n.*hub tool's wait/s), display: true },
        options: { triggerTurn: true, deliverAs: "nextTurn" },
      },
    ]);
    // The next such settle is a repeated one, as a stop hook is told.
    refused.stops.onSettle(settle(true), ctx(1));
    await flush();
    expect(refused.asked[1]?.stop_hook_active).toBe(true);
    const passed = harness(pass);
    passed.stops.onSettle(settle(true), ctx(1));
    await flush();
    expect(passed.asked.length).toBe(1);
    expect(passed.sent).toEqual([]);
  });

  it("lets the turn end after as many refusals in a row as a stop, and says so", async () => {
    const { stops, sent, notes } = harness(block);
    for (let i = 0; i <= MAX_STOP_REFUSALS; i++) {
      stops.onSettle(settle(true), ctx(1));
      await flush();
    }
    expect(sent.length).toBe(MAX_STOP_REFUSALS);
    expect(notes).toEqual([`Tama let the turn end after ${MAX_STOP_REFUSALS} refusals in a row by stop hooks; the last said: Your todo list still has 1 open task`]);
  });

  it("sends nothing when another settle came while its gates ran, and says when it could not check", async () => {
    let release: (verdict: Verdict) => void = () => undefined;
    const slow = harness(() => new Promise<Verdict>((resolve) => (release = resolve)));
    slow.stops.onSettle(settle(true), ctx(1));
    const first = release;
    // The job woke the session and that run ended, checked by session_stop.
    const stopping = slow.stops.onStop({ type: "session_stop", session_id: "s1", stop_hook_active: false } as SessionStopEvent, ctx(1));
    release({ result: { decision: "pass" } as Verdict["result"] });
    await stopping;
    first({ result: { decision: "block", reason: "late" } as Verdict["result"] });
    await flush();
    expect(slow.sent.filter((s) => s.message.customType === SETTLE_REFUSAL_TYPE)).toEqual([]);
    // The job ended as the gates ran: its result wakes the session, whose end OMP checks.
    const ended = harness(() => new Promise<Verdict>((resolve) => (release = resolve)));
    ended.stops.onSettle(settle(true), ctx(1));
    running = 0;
    release({ result: { decision: "block", reason: "late" } as Verdict["result"] });
    await flush();
    running = 1;
    expect(ended.sent).toEqual([]);
    const failing = harness(async () => ({ failure: "the engine is gone" }));
    failing.stops.onSettle(settle(true), ctx(1));
    await flush();
    expect(failing.notes).toEqual(["Tama could not check the end of this turn (a background job is running): the engine is gone"]);
    expect(failing.sent).toEqual([]);
  });
});
