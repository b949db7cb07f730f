// What the adapter shares across adoptions, built as one content-addressed chunk
// beside it (scripts/build.mjs): the third-party libraries and the schemas built
// from them. The adapter's bytes name the chunk's SHA-256, so the adapter's digest
// still names all the code it runs, while Bun, which never frees an imported
// module, evaluates these once per distinct chunk instead of once per adoption.
export * as schema from "../modules/protocol/schema.ts";
export * as protocol from "../modules/protocol/engine.ts";
export * as sessionControlProtocol from "../modules/protocol/session-control.ts";
export { default as pino } from "pino";
export { WebSocket, WebSocketServer } from "ws";
