// Names a listing prints, handed to a writer: `git ls-files | xargs sed -i`, `ls .claude |
// while read f; do cp …`, `fd -x`. Each may be any name under the place listed, so a write
// reaching a policy file there is refused, and one whose listing cannot be told is a path
// built at run time; a listing narrowed by its own globs, types or hidden-name rules, and
// programs that only read, still pass.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchProject, type ScratchProject } from "../support/gate-refusals.ts";

let scratch: ScratchProject;
beforeAll(() => {
  // Every project with project hooks has `.tama/`: a listing narrowed to other names passes it by.
  scratch = scratchProject("listed", { ".claude/settings.json": "{}", ".tama/hooks.json": "{}", "src/": "" });
});
afterAll(() => scratch.remove());

const bash = (command: string): Promise<string[]> => scratch.bash(command);

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
    // Red-team forms: the placeholder replaced in the program's name, text around the name, a program that is a
    // shell or code, option values taken for pathspecs, git's globs across folders and its top-of-tree pathspecs,
    // rg's and fd's other spellings of hidden names, case-blind globs and redefined types, fd's other exec forms.
    "git ls-files | xargs -I e sed -i s/hooks/x/ e",
    "ls -a | xargs -I{} cp /tmp/x .claude/settings{}json",
    "ls -a | while read f; do cp /tmp/x \".claude/settings${f}json\"; done",
    "git ls-files | xargs bash -c 'sed -i s/a/b/ \"$@\"' _",
    "git ls-files | xargs -I{} sh -c 'echo x > {}'",
    "git ls-files | xargs python3 -c 'import sys; [open(f, \"w\").write(\"x\") for f in sys.argv[1:]]'",
    "git ls-files -x '*.md' | xargs sed -i s/a/b/",
    "git grep -l -m 1 hooks | xargs sed -i s/a/b/",
    "git ls-files '.c*' | xargs sed -i s/a/b/",
    "git diff --name-only HEAD -- '.c*' | xargs sed -i s/a/b/",
    "rg -l. hooks | xargs sed -i s/a/b/",
    "rg -u -u -l hooks | xargs sed -i s/a/b/",
    "rg --files --hidden --iglob '*.JSON' | xargs sed -i s/a/b/",
    "rg -l hooks --hidden --type-add 'py:*.json' -t py | xargs sed -i s/a/b/",
    "fd -Hx sed -i s/a/b/",
    "fd -H --exec=sed -i s/a/b/",
    // GNU parallel hands on the lines of its stdin or of a `::::` file as xargs does.
    "git ls-files | parallel sed -i s/a/b/",
    "parallel sed -i s/a/b/ :::: <(git ls-files)",
    "xargs -a <(git ls-files) sed -i s/a/b/",
    // Second red-team pass: the folder of a listed name, `..` that `ls -a` prints, getopt clusters, a line echoed to a
    // shell, and a positional parameter bound before `$(dirname "$1")` is worked out.
    'git ls-files | while read f; do cp /tmp/x "$(dirname "$f")/settings.json"; done',
    "ls -a src | xargs -I{} cp /tmp/x src/{}/.claude/settings.json",
    "git ls-files | xargs -0I{} cp /tmp/x {}",
    "git ls-files | xargs -rI {} cp /tmp/x {}",
    "git ls-files | xargs -iX cp /tmp/x X",
    "git ls-files | xargs echo rm | sh",
    "git ls-files src | xargs -I{} cp /tmp/x {}/../../.claude/settings.json",
    "sh -c 'cp /tmp/x \"$(dirname \"$1\")/settings.json\"' _ .claude/foo",
    // Filters between the listing and the writer print some of its names as they are; an option's value is no file.
    "git ls-files | grep -v test | xargs sed -i s/a/b/",
    "git ls-files | sort -u | head -n 50 | xargs sed -i s/a/b/",
    "git ls-files | tail -n +2 | xargs rm",
    "ls -A | xargs rm -f",
    "ls -d .* | xargs rm -f",
    "git ls-files | grep json | while read f; do sed -i s/a/b/ \"$f\"; done",
    // git rm reads its pathspecs from a file or stdin: any tracked path below.
    "git ls-files | git rm --pathspec-from-file=-",
    "git rm --pathspec-from-file list.txt --pathspec-file-nul",
    "git ls-files | git rm --pathspec-from=-",
    // A filter reading a here-string or a file prints that, not the listing.
    "git ls-files src | head -n 5 <<< .claude/settings.json | xargs sed -i s/a/b/",
    "ls | sort <<< .claude | xargs -I{} cp -r /tmp/payload/. {}",
    // ls prints hidden names with -a or -A in any cluster or abbreviation, under dotglob, and a name split at a line break.
    "ls -A1 | xargs -I{} cp -r /tmp/payload/. {}",
    "ls --alm | xargs -I{} cp -r /tmp/payload/. {}",
    "shopt -s dotglob; ls -d * | while read -r f; do rm -rf \"$f\"; done",
    "touch $'x\\n.claude'; ls | while read -r f; do rm -rf \"$f\"; done",
    // `:/` and `:(top)` list from the work tree's top, printed relative to where git runs (`../.claude/…`).
    "cd src && git ls-files :/ | xargs sed -i s/a/b/",
    "git -C src ls-files ':(top)' | xargs sed -i s/a/b/",
  ])("%s reaches the policy file under the place listed", async (command) => {
    expect(await bash(command)).toContain("self-protection");
  });

  it.each([
    ["my-tool list | xargs rm", "names a program prints"],
    ["my-tool list | xargs echo sed -i s/a/b/ | sh", "names a program prints, echoed to a shell"],
    ["git ls-files | grep -o x | xargs sed -i s/a/b/", "parts of a listing's lines"],
    ["ls /etc/passwd | xargs sed -i s/a/b/", "names ls prints of a folder outside"],
    ["git ls-files | grep x other.txt | xargs sed -i s/a/b/", "lines of another file"],
    ["xargs sed -i s/a/b/ < /dev/stdin", "names from stdin"],
    ['fd -e json . "$D" -x rm {}', "a listing of a folder built at run time"],
    ["fd --base-directory .claude | xargs sed -i s/a/b/", "names from another base folder"],
    ["grep -rl --group-separator XX hooks | xargs sed -i s/a/b/", "a listing with an option Tama does not know"],
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
    "git ls-files '*.ts' '*.tsx' | xargs sed -i s/a/b/",
    "git diff --name-only main...HEAD -- '*.ts' | xargs sed -i s/a/b/",
    "rg -l foo src test | xargs sed -i s/a/b/",
    "fd -e ts . src test -x sed -i s/a/b/",
    "find . -name '*.ts' -exec sed -i s/a/b/ {} +",
    // Programs that only read what they are handed, and a tool found on PATH.
    "git diff --name-only | xargs npx prettier --check",
    "git ls-files | xargs cat",
    "git ls-files | xargs wc -l",
    "git ls-files | git rm -r --cached --pathspec-from-file=-",
    "git ls-files '*.ts' | grep -v test | xargs sed -i s/a/b/",
    // ls skips hidden names unless told (`.tama` is never printed).
    "ls | xargs rm",
    "ls *.log | xargs rm -f",
    "rg -l foo | grep -v vendor | sort | xargs sed -i s/a/b/",
    "fd -H -e json -x jq . {}",
    "ls src | xargs -I{} cp src/{} /tmp/out/",
    "git ls-files '*.ts' | xargs -0I{} cp {} /tmp/o/",
    "sh -c 'cd \"$(dirname \"$0\")\" && sed -i s/a/b/ x.txt' src/run.sh",
    // No list: xargs has nothing to hand on (and the shell runs nothing for a missing `<` file).
    "xargs -a missing.txt rm -f",
    "xargs rm -f < missing.txt",
  ])("%s passes", async (command) => {
    expect(await bash(command)).toEqual([]);
  });

  it("parallel handed a named policy file on its stdin, from a file or by -a is refused; its ::: words and narrowed listings pass", async () => {
    expect(await bash("echo .claude/settings.json | parallel sed -i s/a/b/")).toContain("self-protection");
    expect(await bash("echo .claude/settings.json > l.txt; parallel sed -i s/a/b/ :::: l.txt")).toContain("self-protection");
    expect(await bash("echo .claude/settings.json > l.txt; parallel -j 2 -a l.txt sed -i s/a/b/")).toContain("self-protection");
    expect(await bash("parallel gzip ::: a.log b.log")).toEqual([]);
    expect(await bash("parallel -j4 gzip :::: <(git ls-files '*.log')")).toEqual([]);
  });

  it("parallel's command is a shell line its words make, with each input where a replacement string stands; no option's value is taken for it", async () => {
    for (const command of [
      "git ls-files | parallel 'truncate -s0'",
      "git ls-files | parallel 'echo x > {}'",
      "git ls-files | parallel echo x '>' {}",
      "git ls-files | parallel -I R 'cp /tmp/x R'",
      "git ls-files | parallel -kj4 'sed -i s/a/b/ {}'",
      "parallel --nice 10 sed -i s/a/b/ ::: .claude/settings.json",
      "parallel --block 10M 'sed -i s/a/b/' ::: .claude/settings.json",
      "parallel --arg-sep ,, sed -i s/a/b/ ,, .claude/settings.json",
      "parallel --some-new-option 5 sed -i s/a/b/ ::: .claude/settings.json",
      // Each replacement string is what parallel makes of the input: without its extension, its folder, its base name.
      "parallel mv {} {.} ::: .claude/settings.json.bak",
      "parallel sed -i s/a/b/ {//}/settings.json ::: .claude/x",
      "parallel sed -i s/a/b/ .claude/{/} ::: x/settings.json",
      "echo .claude/x | parallel sed -i s/a/b/ {//}/settings.json",
      "parallel --er R sed -i s/a/b/ R.json ::: .claude/settings",
      "git ls-files src | parallel cp /tmp/x .claude/{/}",
      // -q keeps each word as it is, still filling in its replacement strings; every input is read, not the first few.
      "parallel -q dd of={} ::: .claude/settings.json",
      "parallel sed -i s/a/b/ {} ::: a b c d e f g h i j k l m n o p .claude/settings.json",
      // Several sources make every combination; --colsep splits an input into columns; `--a` is `-a`.
      "parallel rm -rf {1}{2} ::: .cl ::: aude",
      "parallel --colsep , cp /tmp/x {1}/{2} ::: .claude,settings.json",
      "echo .claude/settings.json > l.txt; parallel --a l.txt cp /tmp/x {}",
    ]) expect(await bash(command), command).toContain("self-protection");
    // What Perl makes of an input (its own replacement strings, --rpl's, --plus's) is a path built at run time.
    for (const command of [`parallel cp /tmp/x '{= $_="/etc/hosts" =}' ::: a`, "parallel rm -rf {= s/x/.claude/ =} ::: x", "parallel --rpl '{r} s/^/.claude\\//' sed -i s/a/b/ {r} ::: settings.json", "parallel --plus sed -i s/a/b/ {+/}x ::: a"]) {
      expect(await bash(command), command).toContain("deny-writes-outside-repo");
    }
    // A Perl replacement string runs its code.
    expect(await bash(`parallel 'echo {= system("touch /etc/x") =}' ::: a`)).toContain("deny-writes-outside-repo");
    for (const command of ["git ls-files '*.ts' | parallel 'sed -i s/a/b/ {}'", "parallel 'convert {} {.}.png' ::: a.jpg b.jpg", "seq 5 | parallel 'echo {} > out{#}.txt'", "parallel --nice 10 gzip ::: a.log", "find . -name '*.md' | parallel pandoc {} -o {.}.html", "parallel -q echo 'a b' {} ::: x"]) {
      expect(await bash(command), command).toEqual([]);
    }
  });

  it("a path typed with a part that reads like a listed name is judged as the path it is", async () => {
    expect(await bash("mkdir -p .claude/listed-name:zz && cp /tmp/x .claude/listed-name:zz/../settings.json")).toContain("self-protection");
  });

  it("a list the line wrote before is read, not taken to be missing", async () => {
    expect(await bash("echo .claude/settings.json > l.txt; xargs rm -f < l.txt")).toContain("self-protection");
    expect(await bash("echo .claude/settings.json > l.txt; xargs -a l.txt rm -f")).toContain("self-protection");
  });
});
