import { describe, expect, it } from "vitest";
import { COMPUTED_TEXT, COMPUTED_WORD, readCode } from "../../modules/tools/code-reading.ts";
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

  it.each<[string, CodeLanguage, string]>([
    ['import os,sys; os.system("git commit " + sys.argv[1])', "python", `git commit ${COMPUTED_TEXT}`],
    ['import os,sys; os.system(sys.argv[1] + " -n")', "python", `${COMPUTED_TEXT} -n`],
    ['import os; os.system("git commit -{}".format("n"))', "python", "git commit -n"],
    ['import os,sys; os.system("git commit %s" % sys.argv[1])', "python", `git commit ${COMPUTED_TEXT}`],
    ['import subprocess,sys; subprocess.run(["git", "commit", "-" + sys.argv[1]])', "python", `git commit -${COMPUTED_WORD}`],
    ['import subprocess,sys; subprocess.run(["git"] + sys.argv[1:])', "python", `git ${COMPUTED_WORD}`],
    ['require("child_process").spawnSync("git", process.argv.slice(1))', "javascript", `git ${COMPUTED_WORD}`],
    // A template's `${…}` is read as the computed text `$_`.
    ["require('child_process').execSync(`git commit ${process.argv[1]}`)", "javascript", "git commit $_"],
    ['system "git commit $ARGV[0]"', "unknown", `git commit ${COMPUTED_TEXT}`],
    ['system("git commit " . $ARGV[0])', "unknown", `git commit ${COMPUTED_TEXT}`],
    ['open(F, "$ARGV[0] |")', "unknown", COMPUTED_TEXT],
  ])("%j hands a process %j", (code, language, line) => {
    expect(readCode(code, language).commands).toContain(line);
  });

  it("reads a list that goes on computed as its literal words and one word built at run time", () => {
    const reading = readCode('import subprocess,sys; subprocess.run(["git", "commit", sys.argv[1]])', "python");
    expect(reading.commands).toEqual([`git commit ${COMPUTED_WORD}`]);
    expect(reading.runsComputed).toBe(false);
  });
});
