// Every class of inbound session control message: valid, malformed JSON, unknown op,
// oversized, wrong types, binary, not an object.
import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_BYTES, parseControlMessage } from "../../modules/protocol/session-control.ts";

const KEY = "a".repeat(64);
const parse = (value: unknown) => parseControlMessage(Buffer.from(typeof value === "string" ? value : JSON.stringify(value)), false);

describe("session control messages", () => {
  it("accepts status and reload-adapter with an id and a key", () => {
    expect(parse({ id: "1", op: "status", key: KEY })).toEqual({ ok: true, request: { id: "1", op: "status", key: KEY } });
    expect(parse({ id: 7, op: "reload-adapter", key: KEY })).toEqual({ ok: true, request: { id: 7, op: "reload-adapter", key: KEY } });
  });

  it("names malformed JSON", () => {
    const parsed = parse('{"id":"1","op":');
    expect(parsed).toMatchObject({ ok: false, id: null, error: { code: "malformed-json" } });
    expect(!parsed.ok && parsed.error.message).toMatch(/^the message is not JSON: /);
  });

  it("names an unknown op and keeps the id for the answer", () => {
    expect(parse({ id: "x", op: "frobnicate", key: KEY })).toEqual({
      ok: false,
      id: "x",
      error: { code: "unknown-op", message: 'unknown op "frobnicate": expected status or reload-adapter' },
    });
  });

  it("refuses a message over the size bound before reading it", () => {
    const big = JSON.stringify({ id: "1", op: "status", key: KEY, pad: "x".repeat(MAX_MESSAGE_BYTES) });
    expect(parse(big)).toEqual({
      ok: false,
      id: null,
      error: { code: "too-large", message: `the message is ${Buffer.byteLength(big)} bytes; session control reads at most ${MAX_MESSAGE_BYTES}` },
    });
  });

  it("names wrong types, missing and extra fields by their path", () => {
    const wrongId = parse({ id: { a: 1 }, op: "status", key: KEY });
    expect(wrongId).toMatchObject({ ok: false, id: null, error: { code: "invalid-message" } });
    expect(!wrongId.ok && wrongId.error.message).toMatch(/^id: /);

    const wrongKey = parse({ id: "2", op: "status", key: 5 });
    expect(wrongKey).toMatchObject({ ok: false, id: "2", error: { code: "invalid-message" } });
    expect(!wrongKey.ok && wrongKey.error.message).toMatch(/^key: /);

    const shortKey = parse({ id: "3", op: "status", key: "abc" });
    expect(!shortKey.ok && shortKey.error.message).toBe("key: a session control key is 64 lower-case hex digits");

    const noKey = parse({ id: "4", op: "reload-adapter" });
    expect(!noKey.ok && noKey.error.message).toMatch(/^key: /);

    const extra = parse({ id: "5", op: "status", key: KEY, force: true });
    expect(extra).toMatchObject({ ok: false, id: "5", error: { code: "invalid-message" } });
    expect(!extra.ok && extra.error.message).toMatch(/force/);

    const noOp = parse({ id: "6", key: KEY });
    expect(noOp).toMatchObject({ ok: false, id: "6", error: { code: "invalid-message" } });
    expect(!noOp.ok && noOp.error.message).toMatch(/^op: /);

    const opNumber = parse({ id: "7", op: 3, key: KEY });
    expect(opNumber).toMatchObject({ ok: false, id: "7", error: { code: "invalid-message" } });
  });

  it("refuses what is not a JSON object, and binary frames", () => {
    expect(parse("[1,2]")).toEqual({ ok: false, id: null, error: { code: "invalid-message", message: "the message must be a JSON object, not an array" } });
    expect(parse("null")).toEqual({ ok: false, id: null, error: { code: "invalid-message", message: "the message must be a JSON object, not null" } });
    expect(parse('"status"')).toEqual({ ok: false, id: null, error: { code: "invalid-message", message: "the message must be a JSON object, not string" } });
    expect(parseControlMessage(Buffer.from(JSON.stringify({ id: "1", op: "status", key: KEY })), true)).toEqual({
      ok: false,
      id: null,
      error: { code: "invalid-message", message: "a binary frame is not a message: send JSON as text" },
    });
  });
});
