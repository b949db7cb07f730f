// Paths named through a glob or a link the gates must follow: a glob names what it
// matches when the command runs (`[h]/` with h a link is h/, `.gi[t]` is .git), and
// `ln -t DIR`, several sources, a directory as the last operand and `mv` of a link
// put the link where ln and mv put it. Each refused form below passed every gate before.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { refusingGates } from "../support/gate-refusals.ts";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A project, a home holding OMP's extensions, and what `prepare` adds; the gates refusing `command` there. */
async function refusedBy(command: string | ((where: { project: string; home: string }) => string), prepare?: (where: { project: string; home: string }) => void): Promise<string[]> {
  const root = mkdtempSync(path.join(os.tmpdir(), "tama-globs-"));
  roots.push(root);
  const project = path.join(root, "proj");
  const home = path.join(root, "home");
  mkdirSync(path.join(project, ".git", "hooks"), { recursive: true });
  writeFileSync(path.join(project, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n");
  mkdirSync(path.join(home, ".omp", "agent", "extensions"), { recursive: true });
  mkdirSync(path.join(home, ".tama"), { recursive: true });
  prepare?.({ project, home });
  const line = typeof command === "string" ? command : command({ project, home });
  return refusingGates("bash", { command: line }, { project, tamaHome: path.join(home, ".tama"), home, defaultsOnly: true });
}

const linkHome = ({ project, home }: { project: string; home: string }): void => symlinkSync(home, path.join(project, "h"));
const HOOKS_OFF = "printf '[core]\\n\\thooksPath = /dev/null\\n'";

describe("a glob names what it matches", () => {
  it.each([
    ["a link the line made", "ln -s ~ h && cp x.js [h]/.omp/agent/extensions/", undefined, "self-protection"],
    ["a link made earlier", "cp x.js [h]/.omp/agent/extensions/", linkHome, "self-protection"],
    ["a star over a link made earlier", "cp x.js h*/.omp/agent/extensions/", linkHome, "self-protection"],
    ["rm -rf through a link the line made", "ln -s ~ h && rm -rf [h]/", undefined, "block-destructive-deletes"],
    ["rm -rf through a link made earlier", "rm -rf [h]/", linkHome, "block-destructive-deletes"],
    ["rm -rf of the project through a link", "cd .. && ln -s proj q && rm -rf [q]/", undefined, "block-destructive-deletes"],
    ["a write out of the project through a link", "ln -s /etc e; cp x [e]/", undefined, "deny-writes-outside-repo"],
    ["git's config", `${HOOKS_OFF} >> .gi[t]/config`, undefined, "block-git-hook-bypass"],
    ["git's hooks", "cp hooksrc/pre-commit .gi[t]/hooks/", undefined, "block-git-hook-bypass"],
    ["a hook removed", "rm -f .gi[t]/hooks/pre-commit", undefined, "block-git-hook-bypass"],
    ["git's config through a link the line made", "ln -s .git g && sed -i s/a/b/ [g]/config", undefined, "block-git-hook-bypass"],
  ])("%s: %s", async (_what, command, prepare, gate) => {
    expect(await refusedBy(command, prepare)).toContain(gate);
  });

  it.each([
    ["rm -rf build/*", ({ project }: { project: string }) => mkdirSync(path.join(project, "build", "x"), { recursive: true })],
    ["rm -f *.log", ({ project }: { project: string }) => writeFileSync(path.join(project, "a.log"), "")],
    ["cp x src/*/", ({ project }: { project: string }) => mkdirSync(path.join(project, "src", "a"), { recursive: true })],
    ["rm -rf [b]uild/", ({ project }: { project: string }) => mkdirSync(path.join(project, "build"))],
  ])("passes %s, whose matches stay in the project", async (command, prepare) => {
    expect(await refusedBy(command, prepare)).toEqual([]);
  });
});

describe("links where ln and mv put them", () => {
  it.each([
    ["ln -t DIR", "ln -s -t . ~/.omp/agent && cp x.js agent/extensions/", "self-protection"],
    ["ln -t DIR into git's hooks", `ln -s -t . .git/hooks && printf '#!/bin/sh\\nexit 0\\n' > hooks/pre-commit`, "block-git-hook-bypass"],
    ["ln -t DIR out of the project", "ln -s -t . /etc && cp x etc/", "deny-writes-outside-repo"],
    ["ln --target-directory=DIR", "ln -s --target-directory=. /etc && cp x etc/", "deny-writes-outside-repo"],
    ["ln of several sources into a directory", "mkdir -p d && ln -s /etc /usr d && cp x d/etc/", "deny-writes-outside-repo"],
    ["ln into an existing directory", "ln -s /etc . && cp x etc/", "deny-writes-outside-repo"],
    ["mv of a link", `ln -s .git a && mv a b && ${HOOKS_OFF} >> b/config`, "block-git-hook-bypass"],
    ["mv of a link into a directory", "ln -s /etc a && mv a d/ && cp x d/a/", "deny-writes-outside-repo"],
  ])("%s: %s", async (_what, command, gate) => {
    expect(await refusedBy(command, ({ project }) => mkdirSync(path.join(project, "d")))).toContain(gate);
  });

  it("passes a link that stays in the project", async () => {
    expect(await refusedBy("ln -s ../proj/lib lib2 && cp x lib2/", ({ project }) => mkdirSync(path.join(project, "lib")))).toEqual([]);
  });
});

describe("a program named by a glob", () => {
  it("is what the glob matches: tama's own CLI stays refused", async () => {
    const refused = await refusedBy("./bin/tam? hooks disable self-protection", ({ project }) => {
      mkdirSync(path.join(project, "bin"));
      writeFileSync(path.join(project, "bin", "tama"), "#!/bin/sh\n");
    });
    expect(refused).toContain("self-protection");
  });
});

describe("a `..` after a link", () => {
  it.each([
    ["into OMP's extensions", "ln -s ~/.omp/agent l && cp x.js l/../agent/extensions/", "self-protection"],
    ["into git's hooks", "ln -s .git/hooks gh && cp x gh/../hooks/pre-commit", "block-git-hook-bypass"],
    ["rm -rf out of the project", "mkdir -p a/b && ln -s /usr/share/doc a/b/l && rm -rf a/b/l/../../bin", "block-destructive-deletes"],
    ["a write out of the project", "ln -s /usr/share/doc l && touch l/../x", "deny-writes-outside-repo"],
  ])("climbs from where the link leads, as the kernel walks it: %s", async (_what, command, gate) => {
    expect(await refusedBy(command)).toContain(gate);
  });

  it("in a write tool's absolute path, from a link made before", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "tama-dotdot-"));
    roots.push(root);
    const project = path.join(root, "proj");
    const home = path.join(root, "home");
    mkdirSync(path.join(project, ".git"), { recursive: true });
    mkdirSync(path.join(home, ".omp", "agent", "extensions"), { recursive: true });
    symlinkSync(path.join(home, ".omp", "agent"), path.join(project, "l"));
    const place = { project, tamaHome: path.join(home, ".tama"), home, defaultsOnly: true };
    expect(await refusingGates("write", { path: `${project}/l/../agent/extensions/evil.ts`, content: "x" }, place)).toContain("self-protection");
    // A relative one is resolved on its text, by OMP as by the gates: it stays in the project.
    expect(await refusingGates("write", { path: "l/../agent/extensions/evil.ts", content: "x" }, place)).toEqual([]);
  });

  it("passes a `..` that stays in the project", async () => {
    expect(await refusedBy("mkdir -p a && touch a/../b")).toEqual([]);
  });
});

describe("where cd goes", () => {
  it.each([
    ["cd -P", "cd -P ~/.omp/agent && cp x config.yml", "self-protection"],
    ["cd --", "cd -- ~ && rm -rf .omp", "block-destructive-deletes"],
    ["cd -e", "cd -e /usr && touch x", "deny-writes-outside-repo"],
    ["CDPATH", "CDPATH=/usr cd share && touch x", "deny-writes-outside-repo"],
    ["cdable_vars", "shopt -s cdable_vars; d=/usr; cd d && touch x", "deny-writes-outside-repo"],
    ["a glob over a link the line made", "ln -s ~ h && cd [h]/.omp/agent && cp x config.yml", "self-protection"],
    ["a glob into git's directory", "cd .gi[t] && echo x >> config", "block-git-hook-bypass"],
    ["cd -P through a link and up", "ln -s ~/.omp/agent l && cd -P l/.. && cp x agent/config.yml", "self-protection"],
    ["a cd in eval", "eval 'cd /usr'; touch x", "deny-writes-outside-repo"],
    ["a cd in a function", "f() { cd /usr; }; f; touch x", "deny-writes-outside-repo"],
    ["a cd in a sourced script", "source <(echo cd /usr); touch x", "deny-writes-outside-repo"],
  ])("%s: %s", async (_what, command, gate) => {
    expect(await refusedBy(command)).toContain(gate);
  });

  it.each(["cd src && touch x", "cd -P . && touch x", "cd -- src && touch x"])("passes %s", async (command) => {
    expect(await refusedBy(command, ({ project }) => mkdirSync(path.join(project, "src")))).toEqual([]);
  });
});

describe("a glob's brackets, as the shell reads them", () => {
  it.each([
    ["a ] first in the set", "ln -s .omp o && cp x.js []o]/agent/extensions/", "self-protection"],
    ["a POSIX class", "ln -s .git g && echo x > [[:alpha:]]/hooks/pre-commit", "block-git-hook-bypass"],
    ["a ] first, into git's config", "echo x >> .gi[]t]/config", "block-git-hook-bypass"],
    ["a POSIX class, into git's hooks", "cp x .gi[[:lower:]]/hooks/pre-commit", "block-git-hook-bypass"],
  ])("%s: %s", async (_what, command, gate) => {
    expect(await refusedBy(command, ({ project, home }) => symlinkSync(path.join(home, ".omp"), path.join(project, ".omp")))).toContain(gate);
  });
});

describe("links copied, made relative, or farmed", () => {
  it.each([
    ["cp -a of a link the line made", "ln -s ~ h && cp -a h h2 && cp x h2/.omp/agent/config.yml", "self-protection"],
    ["cp -P", "ln -s ~ h && cp -P h h2 && cp x h2/.omp/agent/config.yml", "self-protection"],
    ["cp -r", "ln -s ~ h && cp -r h h2 && cp x h2/.omp/agent/config.yml", "self-protection"],
    ["cp -a into git's directory", "ln -s .git g && cp -a g g2 && echo '[core] hooksPath=/tmp' >> g2/config", "block-git-hook-bypass"],
    ["ln -r", "mkdir -p a && ln -sr ../home a/h && cp x a/h/.omp/agent/config.yml", "self-protection"],
    ["a farm of links (cp -rs)", "cp -rs ~/.omp farm && echo X > farm/agent/config.yml", "self-protection"],
  ])("%s: %s", async (_what, command, gate) => {
    expect(await refusedBy(command)).toContain(gate);
  });

  it("cp -a of a link made before", async () => {
    expect(await refusedBy("cp -a h h2 && cp x h2/.omp/agent/config.yml", linkHome)).toContain("self-protection");
  });

  it.each(["cp -a src dst && touch dst/x", "ln -s ~ h && cp -L h/x y"])("passes %s", async (command) => {
    expect(await refusedBy(command, ({ project }) => mkdirSync(path.join(project, "src")))).toEqual([]);
  });
});

describe("where a wrapper, git, make or npm runs", () => {
  it.each([
    ["env -iC (a cluster)", "env -iC ~/.omp/agent cp x config.yml", "self-protection"],
    ["env -vC", "env -vC /usr touch x", "deny-writes-outside-repo"],
    ["unshare -w", "unshare -w /usr touch x", "deny-writes-outside-repo"],
    ["unshare --wd=", "unshare --wd=/usr touch x", "deny-writes-outside-repo"],
    ["env -C through a glob over a link", "ln -s ~/.omp/agent a && env -C [a]/extensions cp x .", "self-protection"],
    ["git -C through a glob over a link", "ln -s ~/.omp/agent a && git -C [a]/extensions clone ./repo evil", "self-protection"],
    ["git -C DIR clone", "git -C /usr clone R d", "deny-writes-outside-repo"],
    ["git -C DIR clone URL", "git -C /usr clone https://example.com/r.git", "deny-writes-outside-repo"],
    ["git -C DIR format-patch -o", "git -C /usr format-patch -o out HEAD~1", "deny-writes-outside-repo"],
    ["git -C DIR worktree add", "git -C /usr worktree add wt", "deny-writes-outside-repo"],
    ["npm -C", "npm -C /usr install", "deny-writes-outside-repo"],
    ["make -C: its recipes run there", "make -C ~/.omp/agent -f mk", "self-protection"],
  ])("%s: %s", async (_what, command, gate) => {
    expect(await refusedBy(command, ({ home }) => writeFileSync(path.join(home, ".omp", "agent", "mk"), "all:\n\techo x > config.yml\n"))).toContain(gate);
  });

  it.each(["git -C sub clone R d", "env -C sub touch x", "make -C sub", "git -C sub clone https://example.com/r.git"])("passes %s", async (command) => {
    expect(await refusedBy(command, ({ project }) => {
      mkdirSync(path.join(project, "sub"));
      writeFileSync(path.join(project, "sub", "Makefile"), "all:\n\techo x > out.txt\n");
    })).toEqual([]);
  });
});

describe("links and directories code makes, and archives", () => {
  it.each([
    ["python's os.symlink, then a path through it", (home: string) => `python3 -c 'import os; os.symlink("${home}","h")' && cp x h/.omp/agent/config.yml`, "self-protection"],
    ["through a glob", (home: string) => `python3 -c 'import os; os.symlink("${home}","h")' && cp x [h]/.omp/agent/config.yml`, "self-protection"],
    ["node's symlinkSync", (home: string) => `node -e 'require("fs").symlinkSync("${home}","h")' && cp x h/.omp/agent/config.yml`, "self-protection"],
    ["pathlib's symlink_to", () => `python3 -c 'from pathlib import Path; Path("h").symlink_to("/usr")' && touch h/x`, "deny-writes-outside-repo"],
    ["python's os.chdir, then a relative write", () => `python3 -c 'import os; os.chdir(".git"); open("config","a").write("x")'`, "block-git-hook-bypass"],
    ["node's process.chdir", () => `node -e 'process.chdir(".git/hooks"); require("fs").writeFileSync("pre-commit","x")'`, "block-git-hook-bypass"],
    ["a chdir to a computed place", () => `python3 -c 'import os; os.chdir(os.environ["D"]); open("x","w")'`, "deny-writes-outside-repo"],
    ["a command code starts after its chdir", () => `python3 -c 'import os; os.chdir(".git"); os.system("echo x >> config")'`, "block-git-hook-bypass"],
    ["a command after a computed chdir", () => `node -e 'process.chdir(process.env.D); require("child_process").execSync("touch x")'`, "deny-writes-outside-repo"],
    ["tar --one-top-level", () => "tar -xf e.tar --one-top-level=/usr/evil", "deny-writes-outside-repo"],
    ["tar -P", () => "tar -xPf e.tar", "deny-writes-outside-repo"],
  ])("%s", async (_what, command, gate) => {
    expect(await refusedBy(({ home }) => command(home))).toContain(gate);
  });

  it.each([`python3 -c 'import os; os.chdir("sub"); open("x","w")'`, `python3 -c 'import os; os.chdir("sub"); os.system("touch x")'`, "tar -xf e.tar -C sub", "tar -xf e.tar --one-top-level=sub"])("passes %s", async (command) => {
    expect(await refusedBy(command)).toEqual([]);
  });
});
