// Names a listing prints, handed to a writer: `git ls-files | xargs sed -i`, `ls .claude |
// while read f; do cp …`, `fd -x`. Each may be any name under the place listed, so a write
// reaching a policy file there is refused, and one whose listing cannot be told is a path
// built at run time; a listing narrowed by its own globs, types or hidden-name rules, and
// programs that only read, still pass.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusingGates } from "../support/gate-refusals.ts";

let root: string;
let project: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "tama-listed-"));
  project = path.join(root, "proj");
  mkdirSync(path.join(project, ".git"), { recursive: true });
  writeFileSync(path.join(project, ".git", "HEAD"), "ref: refs/heads/topic\n");
  mkdirSync(path.join(project, ".claude"), { recursive: true });
  writeFileSync(path.join(project, ".claude", "settings.json"), "{}");
  mkdirSync(path.join(project, "src"), { recursive: true });
  mkdirSync(path.join(root, "home", ".tama"), { recursive: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const bash = (command: string): Promise<string[]> =>
  refusingGates("bash", { command }, { project, tamaHome: path.join(root, "home", ".tama"), home: path.join(root, "home"), defaultsOnly: true });

describe("names a listing prints, handed to a writer", () => {
  it.each([
    "git ls-files | xargs sed -i s/a/b/",
    "git ls-files -z | xargs -0 rm",
    "git ls-files -- '*.json' | xargs sed -i s/a/b/",
    "git grep -l foo | xargs sed -i s/foo/bar/",
    "git ls-files | while read f; do sed -i s/a/b/ \"$f\"; done",
    "ls .claude | xargs -I{} cp /tmp/x .claude/{}",
    "ls .claude | while read f; do cp /tmp/x \".claude/$f\"; done",
    "rg -l foo --hidden | xargs sed -i s/a/b/",
    "rg -uu -l foo | xargs sed -i s/a/b/",
    "rg -l foo -t json --hidden | xargs sed -i s/a/b/",
    "rg -l foo .claude | xargs sed -i s/a/b/",
    "RIPGREP_CONFIG_PATH=/tmp/rg.conf rg -l foo | xargs sed -i s/a/b/",
    "grep -rl foo . | xargs sed -i s/foo/bar/",
    "fd -H | xargs rm",
    "fd -H -e json -x sed -i s/a/b/",
    "fd -He json -X rm",
    "fd settings .claude -x cp /tmp/x {}",
  ])("%s reaches the policy file under the place listed", async (command) => {
    expect(await bash(command)).toContain("self-protection");
  });

  it.each([
    ["my-tool list | xargs rm", "names a program prints"],
    ["xargs sed -i s/a/b/ < /dev/stdin", "names from stdin"],
    ['fd -e json . "$D" -x rm {}', "a listing of a folder built at run time"],
  ])("%s: %s are a path built at run time", async (command) => {
    expect(await bash(command)).toContain("deny-writes-outside-repo");
  });

  it.each([
    // rg and fd skip hidden names unless told: .claude/settings.json is never listed.
    "rg -l TODO | xargs sed -i s/TODO/FIXME/",
    "rg -l foo | while read f; do sed -i s/a/b/ \"$f\"; done",
    "fd -e json -x sed -i s/a/b/",
    // Narrowed by the listing's own globs, types, extensions or folder.
    "git ls-files '*.ts' | xargs sed -i s/a/b/",
    "git ls-files src | xargs sed -i s/a/b/",
    "git grep -l foo -- '*.py' | xargs sed -i s/foo/bar/",
    "rg -l foo -g '*.py' --hidden | xargs sed -i s/a/b/",
    "rg -l foo -t py --hidden | xargs sed -i s/a/b/",
    "rg --files -g '*.ts' --hidden | xargs sed -i s/a/b/",
    "grep -rl foo --include='*.py' . | xargs sed -i s/foo/bar/",
    "grep -rl foo src | xargs sed -i s/foo/bar/",
    "fd -H -e py -x black {}",
    // Programs that only read what they are handed.
    "git ls-files | xargs cat",
    "git ls-files | xargs wc -l",
    "fd -H -e json -x jq . {}",
    "ls src | xargs -I{} cp src/{} /tmp/out/",
    // No list: xargs has nothing to hand on (and the shell runs nothing for a missing `<` file).
    "xargs -a missing.txt rm -f",
    "xargs rm -f < missing.txt",
  ])("%s passes", async (command) => {
    expect(await bash(command)).toEqual([]);
  });

  it("a list the line wrote before is read, not taken to be missing", async () => {
    expect(await bash("echo .claude/settings.json > l.txt; xargs rm -f < l.txt")).toContain("self-protection");
    expect(await bash("echo .claude/settings.json > l.txt; xargs -a l.txt rm -f")).toContain("self-protection");
  });
});
