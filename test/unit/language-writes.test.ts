// Files written through a program's own language (awk, sed, vim, ed, sqlite3, gdb, psql,
// mysql, Tcl, Emacs Lisp), by writers whose output an option names, by code in other
// interpreters, and by any program handed a protected path: each form below wrote past
// deny-writes-outside-repo and self-protection before (found by trying them), and each
// plain use of the same program still passes.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { languageWrites } from "../../modules/gates/language-writes.ts";
import { refusingGates } from "../support/gate-refusals.ts";

let root: string;
let project: string;
let home: string;
let extension: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "tama-langwrites-"));
  project = path.join(root, "proj");
  home = path.join(root, "home");
  mkdirSync(path.join(project, ".git"), { recursive: true });
  mkdirSync(path.join(home, ".omp", "agent", "extensions"), { recursive: true });
  mkdirSync(path.join(home, ".tama"), { recursive: true });
  extension = path.join(home, ".omp", "agent", "extensions", "evil.js");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const refusedBy = (command: string): Promise<string[]> =>
  refusingGates("bash", { command }, { project, tamaHome: path.join(home, ".tama"), home, defaultsOnly: true });

/** `OUT` stands for a file outside the project; `EXT` for a file in OMP's extensions. */
const WRITES: [string, string][] = [
  ["awk's print >", `awk 'BEGIN{print "x" > "OUT"}'`],
  ["awk's printf >>", `awk 'BEGIN{printf "x" >> "OUT"}'`],
  ["gawk -i inplace", "awk -i inplace '{print}' OUT"],
  ["gawk -i inplace with -e", "gawk -i inplace -e '{print}' OUT"],
  ["sed's w command", "sed -n 'w OUT' notes.txt"],
  ["sed's w after an address, among -e scripts", "sed -e '/x/w OUT' -e p notes.txt"],
  ["sed's s///w flag", "sed 's/a/b/gw OUT' notes.txt"],
  ["vim's :w FILE", "vim -es -c 'w OUT' -c q"],
  ["vim's +w FILE after -es", "vim -es '+w OUT' '+q'"],
  ["vim's :e then a bare :w", "vim -es -c 'e OUT' -c 'normal ix' -c w -c q"],
  ["vim's :redir", "vim -c 'redir! > OUT' -c q"],
  ["vim's :w with ++opt and |", "vim -c 'sil! w! ++enc=utf8 OUT|q'"],
  ["ex reading its commands from stdin", "ex -s notes.txt <<< $'%s/a/b/\\nw OUT\\nq'"],
  ["ed's w from a pipe", "printf 'a\\nx\\n.\\nw OUT\\nq\\n' | ed -s"],
  ["ed's f then a bare w", "printf 'f OUT\\nw\\nq\\n' | ed -s notes.txt"],
  ["sqlite3's .output", "sqlite3 :memory: '.output OUT' 'select 1;'"],
  ["sqlite3's .backup", "sqlite3 :memory: '.backup main OUT'"],
  ["sqlite3 changing its database", "sqlite3 OUT 'create table t(a);'"],
  ["sqlite3's VACUUM INTO", `sqlite3 :memory: "VACUUM INTO 'OUT'"`],
  ["sqlite3's ATTACH", `sqlite3 :memory: "ATTACH 'OUT' AS x; CREATE TABLE x.t(a);"`],
  ["gdb's dump", "gdb -batch -ex 'dump binary memory OUT 0 1'"],
  ["gdb's log file", "gdb -batch -ex 'set logging file OUT' -ex 'set logging on'"],
  ["lldb's log file", "lldb -o 'log enable -f OUT lldb all'"],
  ["psql's \\copy to", "psql -c '\\copy t to OUT'"],
  ["psql's \\o from stdin", "psql <<< '\\o OUT'"],
  ["mysql's INTO OUTFILE", `mysql -e "select 1 into outfile 'OUT'"`],
  ["mysql's tee", "mysql -e 'tee OUT'"],
  ["tclsh's open for writing", "tclsh <<< 'set f [open OUT w]'"],
  ["expect's file delete", "expect -c 'file delete OUT'"],
  ["Emacs Lisp's write-region", `emacs --batch --eval '(write-region "x" nil "OUT")'`],
  ["git diff --output", "git diff --output=OUT"],
  ["git format-patch -o", "git format-patch -o OUT HEAD~1"],
  ["script's typescript file", "script -q -c true OUT"],
  ["zip's archive", "zip OUT notes.txt"],
  ["ssh-keygen -f", "ssh-keygen -f OUT -N ''"],
  ["openssl -out", "openssl genrsa -out OUT"],
  ["xxd's output operand", "xxd -r dump OUT"],
  ["uniq's output operand", "uniq notes.txt OUT"],
  ["less's log file", "less -o OUT notes.txt"],
  ["gzip replacing its file", "gzip OUT"],
  ["a compiler's -o", "gcc -o OUT x.c"],
  ["a compiler's glued -o", "cc -oOUT x.c"],
  ["go build -o", "go build -o OUT ."],
  ["sponge", "sponge OUT"],
  ["Ruby's File.write", `ruby -e 'File.write("OUT","x")'`],
  ["PHP's file_put_contents", `php -r 'file_put_contents("OUT","x");'`],
  ["PHP's fopen for writing", `php -r '$f=fopen("OUT","w");'`],
  ["Perl's three-argument open", `perl -e 'open(my $f, ">", "OUT")'`],
  ["Perl's two-argument open", `perl -e 'open(F, ">OUT")'`],
  ["Lua's io.open for writing", `lua -e 'io.open("OUT","w")'`],
  ["Node's fs.openSync for writing", `node -e 'fs.openSync("OUT","w")'`],
  ["awk printing to a -v variable", "awk -v f=OUT 'BEGIN{print 1 > f}'"],
  ["awk printing to a variable it sets", `awk 'BEGIN{f="OUT"; print 1 > f}'`],
  ["awk printing to a parenthesized name", `awk 'BEGIN{printf "x" > ("OUT")}'`],
  ["vim's exe of a write", `vim -c 'exe "w OUT"' -c q`],
  ["vim's writefile()", `vim -c 'call writefile(["x"], "OUT")' -c q`],
  ["vim's embedded Python", `vim -c 'py3 open("OUT","w").write("x")' -c q`],
  ["psql -o", "psql -o OUT -c 'select 1'"],
  ["mysql --tee", "mysql --tee=OUT -e 'select 1'"],
  ["find -fprint0", "find . -maxdepth 0 -fprint0 OUT"],
  ["tree -o", "tree -o OUT"],
  ["rsync --backup-dir", "rsync -b --backup-dir=OUT src/ dst/"],
  ["cpio -D", "cpio -id -D OUT < a.cpio"],
  ["install -Dt", "install -Dt OUT notes.txt"],
  ["git archive -o", "git archive -o OUT HEAD"],
  ["git init DIR", "git init OUT"],
  ["scp to a local path", "scp host:x OUT"],
  ["curl -D", "curl -D OUT http://example.invalid"],
  ["7z extracting with -o", "7z x a.zip -oOUT"],
];

describe("a file written through a program's own language or an output option", () => {
  it.each(WRITES)("outside the project: %s", async (_name, command) => {
    expect(await refusedBy(command.replaceAll("OUT", "/etc/tama-probe"))).toContain("deny-writes-outside-repo");
  });
  it.each(WRITES)("into OMP's extensions: %s", async (_name, command) => {
    expect(await refusedBy(command.replaceAll("OUT", extension))).toContain("self-protection");
  });
});

describe("a protected file handed to a program Tama cannot tell only reads it", () => {
  it.each([
    ["scp's destination", "scp host:evil.js EXT"],
    ["an unknown program's operand", "ffmpeg -i x.mp4 EXT"],
    ["inline code's argument", `python3 -c 'import sys; open(sys.argv[1],"w")' EXT`],
    ["a script's argument", "node evil.js EXT"],
    ["awk's operand", "awk '{print}' EXT"],
    ["git checkout", "git checkout -- EXT"],
    ["OMP's plugin installer", "omp plugin install EXT"],
    ["a --option=value", "prog --out=EXT"],
    ["a glued short option", "prog -oEXT"],
    ["a bare name in a protected folder", "cd ~/.omp/agent/extensions && prog evil.js"],
  ])("%s", async (_name, command) => {
    expect(await refusedBy(command.replaceAll("EXT", extension))).toContain("self-protection");
  });
});

describe("plain uses still pass", () => {
  it.each([
    "sed -n '/w /p' /etc/hosts",
    "sed 's/hello world/x/' /etc/hosts",
    "sed 's/x/y/w /dev/stdout' /etc/hosts",
    "awk '{ if ($1 > 2) print $1 }' /etc/hosts",
    `awk '{print $1 > "out.txt"}' /etc/hosts`,
    "vim -es -c 'g/x/d' -c wq notes.txt",
    "sqlite3 /var/lib/app.db 'select * from t'",
    "sqlite3 /var/lib/app.db .tables",
    "sqlite3 data.db 'create table t(a)'",
    "sqlite3 :memory: '.output stdout' 'select 1'",
    "gdb -batch -ex run -ex bt ./a.out",
    "git diff --stat",
    "git log --output=log.txt",
    "gzip -c /etc/hosts > hosts.gz",
    "gunzip -t /tmp/x.gz",
    "gzip build.log",
    "cc -o a.out x.c",
    "uniq /etc/hosts",
    "xxd /bin/ls",
    "zip -r out.zip src",
    "ssh-keygen -l -f /etc/ssh/ssh_host_rsa_key.pub",
    "tclsh <<< 'puts [open /etc/hosts r]'",
    `node -e 'fs.openSync("/etc/hosts","r")'`,
    `perl -e 'open(F, "</etc/hosts")'`,
    `ruby -e 'puts File.read("/etc/hosts")'`,
    "script -q -c make build.log",
    // Reading a protected file stays allowed.
    "cat EXT",
    "grep -r x EXT",
    "sed -n 1p EXT",
    "jq . EXT",
    "git diff EXT",
    "node EXT",
    "cd ~/.omp/agent/extensions && ls",
    `python3 -c "print(open('EXT').read())"`,
  ])("%s", async (command) => {
    expect(await refusedBy(command.replaceAll("EXT", extension))).toEqual([]);
  });
});

describe("crafted texts cost time in proportion to their length", () => {
  it.each([
    ["ed addresses", `ed -s f <<< '${"1".repeat(40)}z'`],
    ["ed offsets", `ed -s f <<< '${"+1".repeat(2000)}z'`],
    ["awk prints", `awk '${"print ".repeat(16000)}'`],
    ["psql copies", `psql -c '${"copy ".repeat(20000)}'`],
    ["sqlite3 vacuums", `sqlite3 db '${"vacuum ".repeat(15000)}'`],
    ["Tcl opens", `tclsh <<< '${"open x ".repeat(15000)}'`],
    ["sed substitutions", `sed '${"s/a/b/ ".repeat(15000)}' f`],
  ])("%s", async (_name, command) => {
    expect(await refusedBy(command)).toBeInstanceOf(Array);
  }, 20_000);
});

describe("languageWrites", () => {
  it("reads nothing from a program it does not know", () => {
    expect(languageWrites("npm", ["npm", "test"], [], () => undefined)).toEqual([]);
  });
  it("takes sed's w file name to the end of the line, as GNU sed does", () => {
    expect(languageWrites("sed", ["sed", "-n", "1w out;p"], [], () => undefined).map((t) => t.word)).toEqual(["out;p"]);
  });
  it("does not read the text an ed append adds as commands", () => {
    expect(languageWrites("ed", ["ed", "-s", "f"], ["a\nw /etc/x\n.\nw\nq"], () => undefined)).toEqual([]);
  });
});
