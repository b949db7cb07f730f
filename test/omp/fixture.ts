// One-call setup for e2e tests: a model server, an isolated OMP env and optional RPC sessions,
// all released in afterEach (even when an assertion failed) so no OMP process or temp dir leaks.
import { afterEach } from "vitest";
import { type ModelServer, type Script, startModelServer } from "./model-server.ts";
import { makeOmpEnv, type OmpEnv, type OmpEnvOptions } from "./omp-env.ts";
import { type RpcSession, type RpcSessionOptions, startRpcSession } from "./rpc-session.ts";

export interface OmpFixture {
	/** Starts the server and the env for this test. */
	setup(options?: { script?: Script } & Omit<OmpEnvOptions, "modelServerUrl">): Promise<{ server: ModelServer; env: OmpEnv }>;
	/** Starts an RPC session in the current env (call setup first). */
	rpc(options?: Partial<RpcSessionOptions>): RpcSession;
}

/** Call at describe/module level; registers the afterEach cleanup. */
export function useOmpFixture(): OmpFixture {
	let server: ModelServer | undefined;
	let env: OmpEnv | undefined;
	const sessions: RpcSession[] = [];

	afterEach(async () => {
		await Promise.all(sessions.splice(0).map(s => s.close()));
		await server?.close();
		env?.cleanup();
		server = undefined;
		env = undefined;
	});

	return {
		async setup(options = {}) {
			const { script, ...envOptions } = options;
			server = await startModelServer(script);
			env = makeOmpEnv({ ...envOptions, modelServerUrl: server.url });
			return { server, env };
		},
		rpc(options = {}) {
			if (!env) throw new Error("useOmpFixture: call setup() before rpc()");
			const session = startRpcSession({ env: env.env, cwd: env.cwd, ...options });
			sessions.push(session);
			return session;
		},
	};
}
