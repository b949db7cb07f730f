import { readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import { installTama } from "./tama-omp.ts";

const omp = useOmpFixture();

it("explore", async () => {
  const { server, env } = await omp.setup();
  const tama = installTama(env);
  const log = path.join(env.scratch, "log.jsonl");
  const reg = tama.readRegistry();
  reg.hooks.push({ id: "logger", events: ["pre_tool_use"], tools: "any", command: ["sh", "-c", `cat >> ${log}; echo >> ${log}`] });
  delete reg.checksum; tama.writeRegistry(reg);
  writeFileSync(path.join(env.cwd, "a.ts"), "const x = 1;\n");
  const session = omp.rpc();
  await session.ready();
  const calls = [
    'CALL eval {"language":"js","code":"const r = require(\'child_process\').execSync(\'echo js-exec-ran\').toString(); await tool.bash({command: \'echo bridged-ran\'}); await write(\'w.txt\', \'hi\'); return r"}',
    'CALL eval {"language":"py","code":"import subprocess\\nprint(subprocess.run(\'echo py-ran\', shell=True, capture_output=True).stdout)"}',
    'CALL ast_edit {"ops":[{"pat":"const x = 1","out":"const x = 2"}],"paths":["a.ts"]}',
    'CALL write {"path":"xd://resolve","content":"apply it"}',
    'CALL bash {"command":"pwd; echo $FOO","cwd":"..","env":{"FOO":"bar"}}',
    'CALL write {"path":"[sub/b.txt#ABCD]","content":"x"}',
  ];
  for (const c of calls) {
    const before = server.requests.length;
    await session.prompt(c);
    const body = server.requests[before + 1]?.body as { messages?: { role: string; content: unknown }[] };
    console.log("PROMPT", c.slice(0, 60), "\n => ", JSON.stringify((body?.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content).slice(-1)).slice(0, 800));
  }
  console.log(existsSync(log) ? readFileSync(log, "utf8") : "no log");
  console.log("files", existsSync(path.join(env.cwd, "w.txt")), readFileSync(path.join(env.cwd, "a.ts"), "utf8"), existsSync(path.join(env.cwd, "sub/b.txt")), existsSync(path.join(env.cwd, "[sub")));
}, 240_000);
