import { describe, expect, it } from "vitest";
import { COMPUTED_TAIL, readCode } from "../../modules/tools/code-reading.ts";
import type { CodeLanguage } from "../../modules/tools/declaration.ts";

describe("readCode: a process call whose command the code computes", () => {
  it.each<[string, CodeLanguage]>([
    ["import os,sys; os.system(sys.stdin.read())", "python"],
    ["import subprocess as s; s.run(cmd, shell=True)", "python"],
    ["system $_", "unknown"],
    ["$c=<STDIN>; system($c)", "unknown"],
    ["exec cmd", "unknown"],
    ["require('child_process').execSync(process.argv[1])", "javascript"],
    ['import subprocess,sys; subprocess.run(["bash", "-c", sys.argv[1]])', "python"],
    ['import subprocess,sys; subprocess.run(["env", line])', "python"],
  ])("%j runs a computed command", (code, language) => {
    expect(readCode(code, language).runsComputed).toBe(true);
  });

  it.each<[string, CodeLanguage]>([
    ['import os; os.system("git status")', "python"],
    ['import subprocess; subprocess.run(["git", "log", "-n", "5"])', "python"],
    ['require("child_process").execFileSync("git", ["status"])', "javascript"],
    ['system("git", "commit", "-m", "x")', "unknown"],
    // The program is written out; only its arguments are computed (read as a word built at run time).
    ['import subprocess,sys; subprocess.run(["black", sys.argv[1]])', "python"],
    ["print(sys.stdin.read())", "python"],
  ])("%j spells its command out", (code, language) => {
    expect(readCode(code, language).runsComputed).toBe(false);
  });

  it("reads a list that goes on computed as its literal words and one word built at run time", () => {
    const reading = readCode('import subprocess,sys; subprocess.run(["git", "commit", sys.argv[1]])', "python");
    expect(reading.commands).toEqual([`git commit${COMPUTED_TAIL}`]);
    expect(reading.runsComputed).toBe(false);
  });
});
