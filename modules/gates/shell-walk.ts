// What a shell gate reads in a tool call: the command lines it runs (a shell call's
// command under OMP's bash `env`, the readable commands of a code-execution call),
// and every simple command those lines run — through wrappers (`env`, `sudo`,
// `setsid`, `find -exec`, `flock -c`, …), nested shells (`bash -c`, here-documents,
// `eval`) and inline interpreter code (`python3 -c`, `node -e`). One walker serves
// every shell gate, so a wrapper the git gate sees through, every gate sees through.
import { callKind, codeOf, shellCommandOf, shellEnvOf } from "../tools/declaration.ts";
import { readCode, shellLine, type CodeReading } from "../tools/code-reading.ts";
import { codeHands, givenWords, importedCode, MAX_GIVEN, type RunCode } from "./code-hands.ts";
import os from "node:os";
import { tempDir } from "../system/paths.ts";
import path from "node:path";
import type { CodeLanguage } from "../tools/declaration.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import { commandsInText, literalRuns, makeDirectory, runnerScripts } from "./command-runners.ts";
import { gitCommandAt, runnerEnv } from "./git-commands.ts";
import { languageWrites } from "./language-writes.ts";
import { isWriter, NAME_READERS, withGlobMatches, writeTargets, writerNames, type WriteTarget } from "./shell-writers.ts";
import { copiedProgram } from "./program-identity.ts";
import { runnerCommand } from "./package-runners.ts";
import { STDIN_FILES } from "./stdin-files.ts";
import { DOWNLOADERS } from "./downloaders.ts";
import { WrittenFiles } from "./written-files.ts";
import { lstatOf, namesIn, realpathOf, statOf } from "../system/disk-moment.ts";
import { MAX_SCRIPT, packageScripts, readScriptFile, shebang, type ScriptFile } from "./script-files.ts";
import { gitAliases, normalizeKey, type GitConfigEntry } from "./git-config.ts";
import { globMatches, isInside, isLink, nameGlob, projectRoot, projectRootIn, realPath, resolvedPath, textPattern, throughLinks } from "./paths.ts";
import { programName, isDynamic, parseShell, spelledProgram, type ShellCommand } from "./shell-words.ts";
import { parallelRun } from "./gnu-parallel.ts";
import { extractionWrites, UNPACKS } from "./archive-members.ts";
import { LISTED_IN_WORD, LISTED_PARENT, LISTED_TRACKED, LISTED_VISIBLE, listedToken, unmarked } from "./listed-token.ts";

export { programName };

/** `bash -c "sh -c '…'"` nests; deeper than this is not a command line anyone writes. */
export const MAX_DEPTH = 8;

/** Commands one call may expand to (functions calling functions, loops, braces) before the walker stops reading. */
const MAX_COMMANDS = 20_000;

/** Script-file text one call may read in all (a script sourcing another thousands of times), past which it is refused as too deep. */
const MAX_FILE_TEXT = 2 * 1024 * 1024;

/** The refusal when a command line nests or expands past what the walker reads. */
export const TOO_DEEP = `this command line nests shells, eval or functions more than ${MAX_DEPTH} deep (or expands to more than ${MAX_COMMANDS} commands), past what Tama reads; write the command out plainly`;

/** What a command line is read under: the environment it gets (the call's own `env` too) and its directory. */
export interface Scope {
  env: ReadonlyMap<string, string>;
  cwd: string | undefined;
  /** Set after a `cd` whose directory is built at run time: the word as written, and `cwd` is no longer known. */
  unknownCwd?: string;
  /** After a `cd` that may not have run (`[ -d x ] && cd x; …`): the other folder the commands may run in. */
  alsoCwd?: string | undefined;
  /** The home directory `~` and `$HOME` name when the environment does not say (the harness's). */
  home?: string;
  /** Shell functions the enclosing scripts define, by name, with their bodies (and those OMP's shell kept from earlier calls). */
  functions?: ReadonlyMap<string, string>;
  /** Aliases the shell already holds (an enclosing script's, or OMP's shell's from earlier calls). */
  aliases?: ReadonlyMap<string, string>;
  /** Variables with more than one value OMP's shell may hold (kept from earlier calls): each is read. */
  alternatives?: ReadonlyMap<string, string[]>;
  /** The positional parameters OMP's shell holds from an earlier call's `set --` (the line's own `"$@"`). */
  positional?: readonly string[];
  /** With `pipedIn`: what the pipe holds, when the walker can tell (`echo 'cmd' | bash -c 'cat | sh'`). */
  pipeText?: string;
  /** With `pipedIn`: a download is upstream (block-pipe-to-shell names it). */
  pipeDownload?: boolean;
  /** The script stands where a piped command stood (an alias's text): its first command reads that pipe. */
  pipedIn?: boolean;
  /** Commands left to read in this call, and script-file text left to read, shared by every nested script. */
  budget?: { left: number; fileText?: number };
  /** Files this call's command lines wrote before the command being read, shared by nested scripts both ways (`bash -c 'echo … > s.sh'; bash s.sh`). */
  written?: WrittenFiles;
  /** The script runs in the call's own shell (eval's, source's), where what it defines stays for later calls. */
  sameShell?: boolean;
  /** Symbolic links the script makes before this command (`ln -s / l`), absolute link → absolute target. */
  links?: ReadonlyMap<string, string>;
  /** Project roots this walk already looked up, by cwd, shared by every nested script (the disk does not change within a walk). */
  roots?: Map<string, string>;
  /**
   * The functions being called and the script files being read around this script: a
   * recursive call, or a script that runs itself again, is read once (its commands are
   * the same), not until the walker's depth runs out.
   */
  reading?: ReadonlySet<string>;
}

/** One simple command as it will run: the program's argv after every wrapper, and its environment. */
export interface RunCommand {
  argv: string[];
  /** The program's base name (`/usr/bin/git` → `git`), undefined for an empty command. */
  program: string | undefined;
  /** The program's name is built at run time (`$(echo git)`, `$cmd`): it may be any program. */
  dynamic: boolean;
  /**
   * A binary the agent could have placed (in the project or the temporary directory) that is
   * no program Tama knows: a copy of git with its build id changed, or a program compiled.
   * The git gates read it as git may be; the others by its name.
   */
  unknownBinary?: boolean;
  /** xargs appends words from its stdin that no reader saw (known ones are already in `argv`). */
  unreadArgs: boolean;
  /** Code the program runs: inline (`python3 -c …`, `node -e …`) or a script file it runs (`python3 f.py`). */
  code: RunCode[];
  /** The program is a shell function the script defines (its body is read as the commands it runs). */
  shellFunction: boolean;
  /**
   * Files written beside the redirects and the writers' argv (shell-writers.ts): through
   * the program's own language (awk's `print > f`, sed's `w f`, vim's `:w f`), and by a
   * wrapper in front of the program (`script -c CMD FILE`).
   */
  otherWrites: WriteTarget[];
  env: Map<string, string>;
  /** The simple command as written (its stdin scripts, its assignments). */
  command: ShellCommand;
  depth: number;
  scope: Scope;
}

export type { RunCode } from "./code-hands.ts";

/** Code files larger than this are run unread (a bundle `node` runs), as code built at run time is. */
const MAX_CODE_FILE = 64 * 1024;

/** Programs that make a folder they are told (its name among their write targets, by these effects). */
const FOLDER_MAKERS = new Set(["mkdir", "git", "unzip", "tar", "7z", "install"]);
const MAKES_FOLDER = /^(makes a worktree in|clones into|extracts into|makes a repository in|makes a directory in)$/;

/** Lines of input parallel is handed that are read as jobs of their own; past them, one job with a name built at run time. */
const MAX_HANDED_LINES = 64;

export { isDynamic } from "./shell-words.ts";

/** Visit every command `script` runs; the first reason a visitor gives ends the walk. */
export function walkShell(script: string, scope: Scope, visit: (run: RunCommand) => string | undefined, depth = 0): string | undefined {
  // What nests deeper, or expands to more, than a reader follows is refused, not passed unread.
  if (depth > MAX_DEPTH) return TOO_DEEP;
  const budget = scope.budget ?? { left: MAX_COMMANDS, fileText: MAX_FILE_TEXT };
  const roots = scope.roots ?? new Map<string, string>();
  // Variables the script sets for itself (`d=$TAMA_HOME; cp x "$d/…"`, `export D=…`) reach the commands after them.
  const shellVars = new Map(scope.env);
  let here: Scope = { ...scope, budget, roots };
  const withFunctions = (scope_: Scope): Scope => ({ ...scope_, functions });
  const dirs: Scope[] = [];
  // Aliases the enclosing script (or OMP's shell, from earlier calls) holds: eval, source and functions expand them too.
  const aliases = new Map<string, string>(scope.aliases ?? []);
  // Functions defined by an enclosing script are callable here too (`f() { g commit -n; }`).
  const defined = functionsOf(script);
  // `f() if …; fi`, `function f for …`: a body not in braces, which functionsOf does not read (and a later call could run).
  const unbraced = UNBRACED.exec(script);
  if (unbraced !== null) return `this command defines a shell function whose body is not in braces (${unbraced[0].trim()} …), which Tama does not read; write its body in { … }`;
  // Only what the call's own shell runs stays in it: its line, and what eval or source runs there (not `bash f.sh`).
  const shadowing = depth === 0 || scope.sameShell === true ? [...defined.keys()].find(isShadowable) : undefined;
  if (shadowing !== undefined) return shadows(shadowing, "function");
  const functions = new Map([...(scope.functions ?? []), ...defined]);
  // The commands of this script see its functions too (a download piped into one that runs a shell).
  here = { ...here, functions };
  // The last command done at each substitution level: what a piped command reads is the one before it at its level,
  // or, first in a substitution (`curl … | bash <(cat)`), what the command holding the substitution reads.
  const lastAt = new Map<number, PipedFrom>();
  // Descriptors `exec N<&0` made copies of the stdin for the commands after it.
  const stdinFds = new Set<number>();
  // A variable's values, as a loop's: every value it may hold (OMP's shell kept several; the line set it again).
  const loops = new Map<string, string[]>(depth === 0 ? scope.alternatives ?? [] : []);
  const written = scope.written ?? WrittenFiles.empty();
  here = { ...here, written };
  // Substitutions run where the line is (`$(cat f)` reads f there, as this line left it; `$(cd d && pwd)` is d).
  // A substitution reads the stdin of the command it is in (`echo 'cmd' | bash -c "$(cat)"`): `stdin`, when the walker can tell.
  const printerHere = (stdin?: string): Printer => {
    const lineCwd = here.unknownCwd === undefined ? here.cwd ?? process.cwd() : undefined;
    return Object.assign((argv_: readonly string[], command_: ShellCommand) => printedOrRead(argv_, command_, lineCwd, written, stdin), lineCwd === undefined ? {} : { cwd: lineCwd });
  };
  /** A variable's value as assigned: expanded, and its substitutions replaced by what they print where the walker can tell. */
  const assigned = (value: string): string => {
    const expanded = expandVars(value, varsOf(shellVars, here));
    const printer = printerHere();
    return printedText(expanded, printer) ?? substitutedInWord(expanded, printer);
  };
  /**
   * Set a variable the script assigns. One set again to another value keeps both, read as
   * a loop's values are: the line reads it flat, and an assignment in a subshell or a
   * branch not taken (`X=.env; (X=ok); cat $X`) must not hide the value that holds.
   */
  const assign = (name: string, value: string): void => {
    const before = shellVars.get(name);
    shellVars.set(name, value);
    if (before === undefined || before === value || isDynamic(before) || isDynamic(value)) return;
    const values = loops.get(name) ?? [before];
    if (!values.includes(value)) loops.set(name, [...values, value].slice(-4));
  };
  // Arrays the script assigns (`a=(…)`): their elements are values built at run time here.
  const arrays = new Set([...script.matchAll(/(?:^|[\s;&|(])([A-Za-z_]\w*)\+?=\(/g)].map((match) => match[1] as string));
  // `set -- commit -n; git "$@"`: positional parameters the script sets itself, bound where they are used.
  const lines = positionalBound(defined.size === 0 ? script : withoutDefinitions(script), depth === 0 ? scope.positional : undefined);
  let seenTop = false;
  // Where the line was before a cd that may not run (after `&&` or `||`, in a branch or a loop), until its list ends.
  let failedCd: { before: Scope; word: string } | undefined;
  let branchCd: Scope | undefined;
  let andCd: Scope | undefined;
  let orInList = false;
  // A pushd or popd that may not have run leaves the stack unknown.
  let dirsKnown = true;
  // Where the last cd on the line left from, where `cd -` goes (undefined: not known).
  let oldCwd: string | undefined;
  // Folders `mkdir` made on the line: a cd into one that is not there yet goes there.
  const madeDirs = new Set<string>();
  // A command before on the line made or changed files (any name, `touch $'x\n.claude'` too), or wrote one it can tell.
  let changedFiles = false;
  const lineMadeFiles = (): boolean => changedFiles || !written.isEmpty();
  // The subshells the walk is in, with where it was on entering each: what a subshell changes is undone when it ends.
  const entered: { id: number; cwd: Pick<Scope, "cwd" | "unknownCwd" | "alsoCwd">; dirs: Scope[]; aliases: Map<string, string> }[] = [];
  for (const parsed of parseShell(lines)) {
    const subshells = parsed.subshells ?? [];
    let common = 0;
    while (common < entered.length && entered[common]?.id === subshells[common]) common++;
    // `(cd .claude; ls) | …`, `cd d | cat`: the directory and aliases are the shell's own again, innermost subshell first. A
    // pipeline's last member runs in the shell under `shopt -s lastpipe` (which OMP's shell may hold): a directory it changed is not known.
    for (let k = entered.length - 1; k >= common; k--) {
      const left = entered[k];
      if (left === undefined) continue;
      const moved = here.cwd !== left.cwd.cwd || here.unknownCwd !== left.cwd.unknownCwd;
      here = { ...here, cwd: left.cwd.cwd, unknownCwd: left.cwd.unknownCwd, alsoCwd: left.cwd.alsoCwd };
      if (left.id < 0 && moved) here = { ...here, unknownCwd: `${here.unknownCwd ?? here.cwd ?? "."} (in a pipeline's last command, under shopt -s lastpipe)` };
      dirs.splice(0, dirs.length, ...left.dirs);
      aliases.clear();
      for (const [name, value] of left.aliases) aliases.set(name, value);
    }
    entered.length = Math.min(entered.length, common);
    // `cd nope; …`: after its list, the shell is where it was (what `&&` joined to it did not run).
    const listGoesOn = parsed.after === "&&" || parsed.piped;
    if (failedCd !== undefined && !listGoesOn) {
      here = { ...here, cwd: failedCd.before.cwd, unknownCwd: failedCd.before.unknownCwd, alsoCwd: failedCd.before.alsoCwd };
      failedCd = undefined;
    }
    if (andCd !== undefined && !listGoesOn) {
      here = eitherFolder(here, andCd, "a cd after &&");
      andCd = undefined;
    }
    // A `||` in the list: what follows may run whether or not a cd before it ran.
    if (parsed.level === 0 && !parsed.piped) orInList = parsed.after === "||" || (parsed.after === "&&" && orInList);
    // `if …; then cd x; fi; …`, `for …; do cd x; …; done; …`: past the compound command, the shell is in either folder.
    if (branchCd !== undefined && parsed.branch !== true) {
      here = eitherFolder(here, branchCd, "a cd in a branch");
      branchCd = undefined;
    }
    for (const id of subshells.slice(common)) entered.push({ id, cwd: { cwd: here.cwd, unknownCwd: here.unknownCwd, alsoCwd: here.alsoCwd }, dirs: [...dirs], aliases: new Map(aliases) });
    // The script's first command reads the stdin it was fed, and so do the substitutions in it (read before it).
    const first = !seenTop;
    if (parsed.level === 0) seenTop = true;
    const fed = first && scope.pipedIn === true;
    const command = fed && !parsed.piped ? { ...parsed, piped: true, outerStdin: parsed.level > 0 } : parsed;
    const outerPipe: PipedFrom | undefined = fed ? { argv: [], printed: () => scope.pipeText, download: scope.pipeDownload === true } : undefined;
    const previous = command.piped ? (command.outerStdin ? lastAt.get(command.level - 1) ?? outerPipe : lastAt.get(command.level) ?? lastAt.get(command.level - 1) ?? outerPipe) : undefined;
    // What the pipe holds: what the command before printed, given what it read in turn (`echo 'cmd' | cat | bash`).
    const pipeText = previous?.printed();
    // `… | read X`: the pipe's text, or, from a program listing names under a root (`grep -rl x src`, `find d`, `ls d`), a name there.
    const fromPipeFor = (words: readonly string[]): string[] | undefined => {
      if (words[0] !== "read" || previous === undefined) return undefined;
      if (pipeText !== undefined) return [pipeText];
      const listed = previous.listed?.();
      return listed === undefined ? undefined : [listed];
    };
    if (command.argv.length === 0 || (["export", "declare", "typeset", "local", "readonly"].includes(command.argv[0] as string) && command.argv.length > 1)) {
      // `a=(-n x)` (which the parser reads as `a=` and a subshell): `$a` is an element the walker does not follow.
      for (const { name, value } of command.assignments) assign(name, value === "" && arrays.has(name) ? "$(array)" : assigned(value));
      // `declare -l o=-N` holds `-n`; `declare -n r=x` makes r another name for x, read as a value built at run time.
      const flags = command.argv.slice(1).filter((word) => /^[-+][A-Za-z]+$/.test(word) && word.startsWith("-")).join("");
      const attributed = (value: string): string => (/n/.test(flags) ? "$(declare -n)" : /l/.test(flags) ? value.toLowerCase() : /u/.test(flags) ? value.toUpperCase() : value);
      for (const word of command.argv.slice(1)) {
        const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(word);
        if (match) assign(match[1] as string, attributed(assigned(match[2] as string)));
      }
    }
    // `: ${X:=--no-verify}`: a default assigned where the variable is not set stays for the commands after it.
    for (const word of command.argv.some((w) => w.includes("${")) || command.assignments.length > 0 ? [...command.argv, ...command.assignments.map((a) => a.value)] : []) {
      if (!word.includes("=")) continue;
      for (const [, name, value] of word.matchAll(DEFAULT_ASSIGNED)) {
        if (!shellVars.has(name as string)) assign(name as string, assigned(value as string));
      }
    }
    // `for d in a b; do rm -rf "$d"; done`: a command using a loop's variable runs once per value.
    for (const known of loopVariants(command, varsOf(shellVars, here), loops)) {
      if (--budget.left < 0) return TOO_DEEP;
      // `~+` is the directory, `~-` the previous one (unknown here).
      // Substitutions run where the line is (`$(cat f)` reads f there, as this line left it), reading the command's stdin.
      const printer = printerHere(pipeText);
      // Unquoted expansions split on IFS (`IFS=_; c=git_commit_-n; $c`); an empty IFS splits nothing.
      const ifs = known.get("IFS");
      const splitter = ifs === undefined || isDynamic(ifs) ? /\s+/ : ifs === "" ? /(?!)/ : new RegExp(`[${ifs.replace(/[\]\\^-]/g, "\\$&")}]+`);
      let words = command.argv.flatMap((word, i) => {
        const raw = expandVars(word.replace(/^~([+-])(?=\/|$)/, (_t, sign: string) => (sign === "+" ? "$PWD" : "$OLDPWD")), known);
        const whole = printedText(raw, printer);
        const expanded = whole === undefined ? substitutedInWord(raw, printer) : raw;
        if (command.quoted[i] === true) return [whole ?? expanded];
        // An unquoted expansion is split into words, as the shell splits it (`c='git commit -n'; $c`).
        return expanded !== word && !isDynamic(expanded) && splitter.test(expanded) ? expanded.split(splitter).filter(Boolean) : whole !== undefined ? whole.split(splitter).filter(Boolean) : [expanded];
      });
      // Aliases are expanded in command position, after `time`, `coproc` and `!` too (`alias g='git -c …'; time g commit`).
      const at = commandStart(words);
      const prefix = words.slice(0, at);
      const alias = words[at] === undefined ? undefined : aliases.get(words[at] as string);
      if (alias !== undefined) {
        const expanded = aliasExpansion(alias, words.slice(at + 1), aliases);
        const expansion = typeof expanded === "string" ? (prefix.length === 0 ? expanded : expanded.split("\n").map((line) => `${shellLine(prefix)} ${line}`).join("\n")) : [...prefix, ...expanded];
        if (typeof expansion === "string") {
          // Text the shell reads in the command's place (`a='curl … | sh'`, several kept definitions, `a='env '`): read as a script there.
          const fedAlias: Partial<Scope> = command.piped ? { pipedIn: true, ...(pipeText !== undefined ? { pipeText } : {}), ...(previous?.download === true ? { pipeDownload: true } : {}) } : { pipedIn: false };
          const reason = walkShell(expansion, { ...here, aliases: new Map(aliases), functions, sameShell: depth === 0 || here.sameShell === true, pipeText: undefined, pipeDownload: undefined, ...fedAlias }, visit, depth + 1);
          if (reason !== undefined) return reason;
          continue;
        }
        words = expansion;
      }
      // `bash 3<&0 /dev/fd/3`: a descriptor copied from stdin is stdin (`exec 3<&0` earlier on the line too).
      const copies = command.stdinCopies === undefined && stdinFds.size === 0 ? [] : [...(command.stdinCopies ?? []), ...stdinFds];
      if (copies.length > 0) words = words.map((word) => (copies.some((fd) => word === `/dev/fd/${fd}` || word === `/proc/self/fd/${fd}`) ? "/dev/stdin" : word));
      if (words[0] === "exec" && words.length === 1) for (const fd of command.stdinCopies ?? []) stdinFds.add(fd);
      // Redirection targets are expanded as the shell expands them, too.
      const expandedCommand: ShellCommand = { ...command, argv: words, redirects: command.redirects.map((r) => ({ ...r, target: expandVars(r.target, known) })) };
      const env = new Map(shellVars);
      for (const { name, value } of command.assignments) env.set(name, expandVars(value, known));
      const unwrapped = unwrap(words, env);
      // `env 'BASH_FUNC_git%%=() { …; }' bash -c 'git …'`: a function handed to the shells it starts, defined where no reader sees it.
      const handedFunction = words.find((word) => word.startsWith("BASH_FUNC_")) ?? [...env.keys()].find((name) => name.startsWith("BASH_FUNC_"));
      if (handedFunction !== undefined) return `this command hands the shells it starts a function in the environment (${handedFunction}), which Tama does not read; define it in the script instead`;
      // A PATH with a directory of its own holding a program named git (or another the gates read): that file runs where Tama reads git.
      const pathValue = env.get("PATH");
      const impostor = pathValue === undefined || pathValue === process.env.PATH ? undefined : shadowedOnPath(pathValue, here.cwd ?? process.cwd());
      if (impostor !== undefined) return `this command runs with a PATH that finds ${impostor} before the system's, a program Tama would read as \`${path.basename(impostor)}\`; run it by its path, or leave PATH as it is`;
      const { scripts } = unwrapped;
      let { argv } = unwrapped;
      // `env -C DIR cmd`: the command runs in DIR (and what it names is resolved there).
      const inner: Scope = unwrapped.chdir.reduce<Scope>((at, dir) => ({ ...at, ...changeDirectory(["--", dir], at, known) }), { ...here, env });
      const cwdHere = inner.unknownCwd === undefined ? inner.cwd ?? process.cwd() : undefined;
      // `/usr/bin/g[i]t`, `/bin/ba?h`: the shell runs what the glob matches (the first, the others its first words).
      if (argv[0] !== undefined && /[*?]|\[.+\]/.test(argv[0]) && !isDynamic(argv[0]) && cwdHere !== undefined) {
        const matches = globMatches(argv[0], cwdHere, inner.links).slice(1).sort();
        if (matches.length > 0) argv = [...matches, ...argv.slice(1)];
      }
      // `./g commit -n` where g is a link to or a copy of git: read as git; an unknown binary the agent placed, as any program.
      const homeHere = known.get("HOME") ?? here.home ?? os.homedir();
      const behind =
        argv[0] === undefined ? undefined : (programBehind(argv[0], cwdHere, env.get("PATH"), homeHere) ?? (functions.has(argv[0]) || aliases.has(argv[0]) ? undefined : unfoundUnderRuntimePath(argv[0], env.get("PATH"), cwdHere)));
      // A shell setup tool the person installed, run as itself: not a function or alias of the line's, nor a file the agent could have placed.
      const systemSetup = (words_: readonly string[]): boolean => {
        const name = words_[0];
        if (name === undefined || !isShellSetup(words_) || functions.has(name) || aliases.has(name)) return false;
        const file = commandFile(name, cwdHere, env.get("PATH"), homeHere);
        return file === undefined || !agentPlaces(cwdHere, file).some((place) => isInside(place, file));
      };
      if (behind !== undefined && behind !== "unknown") {
        // A copy of git started as `git-commit` (`exec -a git-commit ./g -n`) runs that command.
        const as = unwrapped.argv0 === undefined ? undefined : programName(unwrapped.argv0);
        argv = [as !== undefined && path.basename(behind) === "git" && as.startsWith("git-") ? as : behind, ...argv.slice(1)];
      }
      const program = argv[0] === undefined ? undefined : programName(argv[0]);
      // A builtin that changes this shell (unset, alias, hash, shopt, eval) is one only as spelled: `UNSET X` changes
      // nothing (found on a file system that folds case, /usr/bin/unset runs it in a shell of its own), though it is read as unset runs.
      const builtin = argv[0] === program ? program : undefined;
      let unreadArgs = false;
      let xargsWrites: WriteTarget[] = [];
      // `~/f` as the shell expands it, also where a program joins it with its own words (`make -C ~/d -f mk`).
      const fileAt = (given: string): string | undefined => {
        const word = given.replace(/^~(?=\/|$)/, known.get("HOME") ?? "~");
        return cwdHere === undefined && !path.isAbsolute(word) ? undefined : path.resolve(cwdHere ?? "/", word);
      };
      const textAt = (given: string): string | undefined => {
        const file = fileAt(given);
        return file === undefined ? undefined : fileTextOf(file, written, inner.links);
      };
      // A file not there, where the line wrote none before: it reads as nothing.
      const absent = (given: string): boolean => written.isEmpty() && !isDynamic(given) && (cwdHere !== undefined || path.isAbsolute(given)) && lstatOf(path.resolve(cwdHere ?? "/", given.replace(/^~(?=\/|$)/, known.get("HOME") ?? "~"))) === undefined;
      // `bash < f.sh`, `python3 < f.py`, `xargs cmd < list`: the file is its stdin.
      const redirectedIn = expandedCommand.redirects.filter((r) => r.op === "<" && !STDIN_FILES.has(r.target)).flatMap((r) => {
        // `bash < <(echo …)`: what the substitution prints.
        const text = r.target.startsWith("<(") ? substitutionText(r.target, printer) : textAt(r.target);
        return text === undefined ? [] : [text];
      });
      // `read X <<< …`, `read -r X < <(echo …)`, `… | read X`: a value the line can tell.
      const readFromPipe = fromPipeFor(words) ?? [];
      setByBuiltin(words, redirectedIn.length > 0 || readFromPipe.length > 0 ? { ...command, stdin: [...command.stdin, ...redirectedIn, ...readFromPipe] } : command, shellVars);
      if (unwrapped.xargs) {
        // `xargs -a FILE`, `--arg-file=FILE`: its input is that file.
        const argFile = unwrapped.argFile ?? words.flatMap((word, i) => (word === "-a" || word === "--arg-file" || word === "::::" ? [words[i + 1] ?? ""] : word.startsWith("--arg-file=") ? [word.slice("--arg-file=".length)] : []))[0];
        // `xargs -a <(echo …)`: the file is what the substitution prints.
        const fromArgFile = argFile === undefined ? undefined : argFile.startsWith("<(") ? substitutionText(argFile, printer) : textAt(argFile) ?? (absent(argFile) ? "" : undefined);
        // `xargs rm < list` with no list: the shell runs nothing.
        const inFile = expandedCommand.redirects.find((r) => r.op === "<" && !r.target.startsWith("<(") && !STDIN_FILES.has(r.target))?.target;
        const fed = argFile !== undefined ? fromArgFile : inFile !== undefined && absent(inFile) ? "" : xargsInput({ ...expandedCommand, stdin: [...expandedCommand.stdin, ...redirectedIn] }, previous);
        // The input no reader saw: a name its listing prints (`xargs -a <(git ls-files) …`, `parallel … :::: <(git ls-files)`, a
        // listing piped in), else a name built at run time by what feeds it.
        // `xargs -a <(…)`: the commands the substitution runs.
        const argFileScript = argFile === undefined ? undefined : /^<\((.*)\)$/s.exec(argFile)?.[1];
        const substituted = argFileScript === undefined ? undefined : parseShell(argFileScript);
        const listedHanded = (): string | undefined => {
          if (substituted !== undefined) return substituted.length === 1 && substituted[0] !== undefined ? listedName(substituted[0].argv, env, cwdHere) : undefined;
          return previous !== undefined && command.piped ? previous.listed?.() : undefined;
        };
        const handedName = (): string => listedHanded() ?? runTimeName(argFile !== undefined ? ["cat", argFile] : inFile !== undefined ? ["cat", inFile] : command.piped ? previous?.argv : undefined);
        // From xargs (or parallel) to the end of the command it runs (parallel's `:::: FILE` after it).
        const runsFrom = Math.max(0, words.findIndex((word) => programName(word) === "xargs" || programName(word) === "parallel"));
        const inputsFrom = words.findIndex((word, i) => i > runsFrom && (word === ":::" || word === "::::" || word === ":::+"));
        const xargsOptions = words.slice(runsFrom, inputsFrom === -1 ? undefined : inputsFrom);
        // `… | parallel 'sed -i … {}'`: a shell line per input, the lines the walker can tell, else the one name standing for them.
        const job = unwrapped.job;
        if (job !== undefined) {
          const items = fed?.split(/\r?\n/).filter(Boolean);
          if (items !== undefined) scripts.push(...items.slice(0, MAX_HANDED_LINES).map(job), ...(items.length > MAX_HANDED_LINES ? [job("$(parallel)")] : []));
          else scripts.push(job(handedName()));
        } else if (fed !== undefined) argv = xargsRun(xargsOptions, argv, fed);
        else {
          unreadArgs = true;
          // `find . -name '*.json' | xargs sed -i …`: a writer handed what find prints changes what it selects, as `-exec` would.
          const finder = previous?.argv[0] === undefined ? undefined : programName(previous.argv[0]);
          // Only where the names handed on are what the writer writes (`sed -i`, `chmod`), not its sources (`cp -t DIR`, `tar czf A`).
          const writesHanded = program !== undefined && isWriter(program) && writeTargets({ ...expandedCommand, redirects: [] }, xargsPlaced(xargsOptions, argv, HANDED)).some((target) => target.word.includes(HANDED));
          if (finder === "find" && writesHanded && previous !== undefined) {
            xargsWrites = writeTargets({ ...expandedCommand, redirects: [] }, [...previous.argv, "-exec", ...argv, "{}", "+"]);
          } else if (program !== undefined) {
            // `git ls-files | xargs sed -i …`, `ls .claude | xargs -I{} cp f .claude/{}`, `… | xargs bash -c '…' _`: a name
            // the listing prints stands for every name under the place it lists (self-protection reads it so); any
            // other input is a name built at run time, as `sed -i … $(tool)` is. A program that only reads is handed nothing.
            // `xargs -a <(git ls-files) …`, `parallel … :::: <(git ls-files)`: the listing the substitution runs.
            // A program that only reads is handed a name built at run time as nothing (a listed name is no secret's);
            // echo and printf print what they are handed (`… | xargs echo rm | sh`).
            const reader = argv[0] === program && NAME_READERS.has(program) && program !== "echo" && program !== "printf";
            // Names a listing upstream printed, cut or rewritten on the way (`git status --porcelain | cut -c4- | xargs cat`),
            // are read as any name under the place it listed.
            const firstFed = substituted?.[0]?.argv;
            const parts = !reader || listedHanded() !== undefined ? undefined : command.piped ? previous?.parts?.() : firstFed !== undefined ? printedNames(firstFed, env, cwdHere) : undefined;
            if (parts !== undefined) argv = xargsPlaced(xargsOptions, argv, parts);
            else if (listedHanded() !== undefined || !reader) argv = xargsPlaced(xargsOptions, argv, handedName());
          }
        }
      }
      // A function runs after `time`, `coproc` and `!` too (not after `env` or `command`, which run a program).
      const lead = commandStart(words);
      // A function calling itself is read once (its commands are the ones already read).
      const calling = argv[0] === undefined ? "" : `function ${argv[0]}`;
      // A function is called by its name as spelled (bash's names keep case, on any file system).
      const calledName = argv[0] !== undefined && words[lead] === argv[0] && functions.has(argv[0]) ? argv[0] : undefined;
      const calls = calledName !== undefined && !here.reading?.has(calling) ? [callBody(functions.get(calledName) as string, argv.slice(1))] : [];
      // `echo 'cmd' | sh`, `cat <<EOF | bash`, `cat f.sh | sh`: a shell reading its script from the pipe reads what the command before printed.
      const fromPipe = pipeText;
      const stdin = [...expandedCommand.stdin, ...redirectedIn, ...(fromPipe === undefined ? [] : [fromPipe])];
      const fromFile = scriptFiles(program, argv, inner, written, stdin, env, (word) => substitutionText(word, printer));
      if (fromFile.refusal !== undefined) return fromFile.refusal;
      const ownCode = [...inlineCodeOf(program, argv), ...fromFile.code];
      // The project's modules the code imports run as part of it.
      const code = ownCode.length === 0 ? ownCode : [...ownCode, ...importedCode(ownCode, textAt, env)];
      // `perl -ne 'system $_' f`, inline code that starts processes: the lines of the files it reads may be what it runs.
      const dataLines = code.some((c) => c.fromFile !== true && readCode(c.code, c.language).startsProcesses)
        ? argv.slice(1).filter((word) => !word.startsWith("-") && !code.some((c) => c.code === word)).slice(0, 16).flatMap((word) => textAt(word)?.split("\n") ?? [])
        : [];
      // Code whose process calls run what it computes (`os.system(sys.argv[1])`, `["git", "commit", *sys.argv[1:]]`,
      // `system $_`): read with what it is given in place of what it computes (code-hands.ts).
      const hands = codeHands({ program, argv, code, scriptFiles: fromFile.files, stdin, env, textAt });
      if (hands.tooMany) return `this command gives code that runs a command it computes more than ${MAX_GIVEN} words, past what Tama reads of what it may run; give it fewer, or run the commands themselves`;
      const runsInput = hands.runsInput;
      const handedLines = hands.lines;
      // eval, source and `.` run their script in this shell: what it defines or where it goes stays.
      const inShell = builtin === "eval" || builtin === "source" || builtin === "." || builtin === "trap";
      // A script the command runs reads the stdin it was given (`… | bash -c 'cat | sh'`, `… | find . -exec bash \;`), the pipe's text with it.
      const piping: Partial<Scope> = command.piped ? { pipedIn: true, ...(fromPipe !== undefined ? { pipeText: fromPipe } : {}), ...(previous?.download === true ? { pipeDownload: true } : {}) } : {};
      const nestedScope = (reading: readonly string[], piped: Partial<Scope> = {}): Scope => {
        const base: Scope = { ...inner, pipedIn: undefined, pipeText: undefined, pipeDownload: undefined, ...piped, sameShell: inShell && (depth === 0 || inner.sameShell === true), aliases: new Map(aliases) };
        return withFunctions(reading.length === 0 ? base : { ...base, reading: new Set([...(inner.reading ?? []), ...reading]) });
      };
      // What a shell reads from stdin as its script is the pipe's text itself, not a script fed it.
      const nestedHere = nestedScripts(program, argv, stdin, code, printer);
      const nestedAll: [script: string, scope: Scope][] = [
        ...[...scripts, ...hands.filled(nestedHere), ...dataLines, ...handedLines].map((nested): [string, Scope] => [nested, nestedScope([], stdin.includes(nested) ? {} : piping)]),
        // A function's body reads the stdin its call was given (`curl … | f bash`, `f() { "$@"; }`).
        ...calls.map((nested): [string, Scope] => [nested, nestedScope([calling], piping)]),
        ...fromFile.scripts.map((nested): [string, Scope] => {
          const fileScope = nestedScope(fromFile.files);
          const args = fromFile.args ?? [];
          const positional = args.slice(0, 9).map((arg, i): [string, string] => [String(i + 1), arg]);
          if (args.length > 0) positional.push(["@", args.join(" ")], ["*", args.join(" ")]);
          return [nested, positional.length === 0 ? fileScope : { ...fileScope, env: new Map([...fileScope.env, ...positional]) }];
        }),
      ];
      for (const [nested, nestedIn] of nestedAll) {
        const reason = walkShell(nested, nestedIn, visit, depth + 1);
        if (reason !== undefined) return reason;
      }
      // What runs in this shell (eval, source, a function) and changes its directory moves the commands after it.
      const movedBy = (inShell || calls.length > 0) && nestedAll.some(([nested]) => CHANGES_DIRECTORY.test(nested)) ? `${program ?? ""} …` : undefined;
      // A file the program reads its commands from: its stdin, a printed process substitution, a file this line wrote first.
      // A file the line wrote in a way no reader can know (`base64 -d > Makefile`, or under another spelling, `> MAKEFILE`) is read by make as it is.
      let readUnknown = false;
      const fileText = (word: string): string | undefined => {
        if (STDIN_FILES.has(word)) return stdin.join("\n");
        const printed = substitutionText(word, printer);
        if (printed !== undefined) return printed;
        const file = fileAt(word);
        if (file !== undefined && writtenUnread(file, written, inner.links)) readUnknown = true;
        return textAt(word);
      };
      // Read for the program that runs and for the first word, when a wrapper stood there (`ssh -o ProxyCommand=… host cmd`).
      const first = words[0] === undefined ? undefined : programName(words[0]);
      const ownLanguage = [...runnerScripts(program, argv, stdin, env, fileText), ...(first !== undefined && first !== program ? runnerScripts(first, words, stdin, env, fileText) : [])];
      if (readUnknown) return SCRIPT_WRITTEN_UNREAD;
      // What a program's language yields (a makefile's recipes) is text read from files too: charged to the same budget.
      if (budget.fileText !== undefined && ownLanguage.length > 0) {
        budget.fileText -= ownLanguage.reduce((sum, line) => sum + line.length, 0);
        if (budget.fileText < 0) return TOO_DEEP;
      }
      // `make -C DIR`: its recipes run in DIR.
      const runnerDir = program === "make" ? makeDirectory(argv.slice(1)) : undefined;
      const runnerAt = runnerDir === undefined ? inner : { ...inner, ...changeDirectory(["--", runnerDir], inner, known) };
      const runnerScope = ownLanguage.length > 0 ? withFunctions({ ...runnerAt, env: runnerEnv(program, env) }) : inner;
      for (const nested of ownLanguage) {
        const reason = walkShell(nested, runnerScope, visit, depth + 1);
        if (reason !== undefined) return reason;
      }
      // A wrapper that writes a file of its own (`script -c CMD FILE`); find's start points are not (its -exec command is read).
      const wrapped = first !== undefined && first !== program;
      const otherWrites = [
        ...languageWrites(program, argv, stdin, fileText),
        // Code that writes or removes a path it is given (`open(sys.argv[1], "w")`, `rmtree(sys.argv[1])`): each word it is given may be that path.
        ...(code.some((c) => readCode(c.code, c.language).givenWrites) ? givenWords(argv, code, fromFile.files).words.filter((word) => !word.startsWith("-")).map((word): WriteTarget => ({ word, effect: "may write (a path its code is given)", reachesBelow: true })) : []),
        ...(wrapped ? languageWrites(first, words, stdin, fileText) : []),
        ...(wrapped && first !== "find" ? writeTargets({ ...expandedCommand, redirects: [] }, words) : []),
        ...xargsWrites,
        // `tar -xf a.tar`, `zcat a.tgz | tar x`, `unzip a.zip`: the members the archive unpacks.
        ...extractionWrites(argv, expandedCommand.redirects.find((r) => r.op === "<")?.target, command.piped ? previous?.argv : undefined, cwdHere, written, env),
      ];
      const shellFunction = calledName !== undefined;
      const run: RunCommand = { argv, program, dynamic: argv[0] !== undefined && isDynamic(argv[0]), ...(behind === "unknown" ? { unknownBinary: true } : {}), unreadArgs, code, shellFunction, otherWrites, env, command: expandedCommand, depth, scope: inner };
      const reason = visit(run);
      if (reason !== undefined) return reason;
      // `python3 gen.py | bash`, `… | sed p | sh`: a script piped in that no reader here can tell runs unread.
      // A command named by text read from such a pipe (`… | eval "$(cat)"`, `… | { x=$(cat); $x; }`) too.
      // A shell setup tool's output (`kubectl completion bash | source /dev/stdin`) is the person's tool's own.
      // `./gen | python3 -c 'import os,sys; os.system(sys.stdin.read())'`: code that runs commands built from its stdin, fed unread text (a download too).
      const unreadFed = command.piped && fromPipe === undefined && redirectedIn.length === 0 && expandedCommand.stdin.length === 0 && previous?.setup !== true;
      if (unreadFed && ((argv[0] !== undefined && /\$\(|`/.test(argv[0])) || readsScriptOnStdin(program, argv, code, env)) && previous?.download !== true) {
        const from = previous?.argv[0] === undefined ? "the command before it" : `what ${programName(previous.argv[0])} prints`;
        return `this command pipes text Tama cannot read (${from}) into ${program ?? "a program"}, which runs it as its script; write the commands out in the call, or save the text to a file, read it, and run that`;
      }
      if (unreadFed && runsInput) {
        const from = previous?.argv[0] === undefined ? "the command before it" : `what ${programName(previous.argv[0])} prints`;
        return `this command pipes text Tama cannot read (${from}) into ${program ?? "a program"} whose code runs commands it builds from what it reads, so they run unread; write the commands out in the call, or save the text to a file, read it, and run that`;
      }
      // `eval "$(python3 gen.py)"`, `bash -c "$(node gen.js)"`, `$(./gen)`, `source <(./gen)`: a program's output run as commands, unread.
      const output = previous?.download === true ? undefined : unreadOutputRun(argv, program, printer, systemSetup);
      if (output !== undefined) {
        return `this command runs what \`${output.slice(0, 60)}\` prints as commands, which Tama cannot read; write the commands out in the call, or save the output to a file, read it, and run that`;
      }
      // `… > >(bash)`, `curl -o >(sh) URL`: what the command writes there is the stdin of the commands inside, read after it.
      const outputs = expandedCommand.redirects.some((r) => r.target.startsWith(">(")) || expandedCommand.argv.some((w) => w.startsWith(">(")) ? [...expandedCommand.argv, ...expandedCommand.redirects.map((r) => r.target)] : [];
      for (const word of outputs) {
        const inside = /^>\((.*)\)$/s.exec(word)?.[1];
        if (inside === undefined) continue;
        const printedInto = printedOrRead(argv, expandedCommand, cwdHere, written, pipeText);
        const downloading = (program !== undefined && DOWNLOADERS.has(program)) || previous?.download === true;
        const fed = walkShell(inside, nestedScope([], { pipedIn: true, ...(printedInto !== undefined ? { pipeText: printedInto } : {}), ...(downloading ? { pipeDownload: true } : {}) }), visit, depth + 1);
        if (fed !== undefined) return fed;
      }
      const expanded = gitAliasRun(run);
      if (expanded !== undefined) {
        const aliased = expanded.shell !== undefined ? walkShell(expanded.shell, nestedScope([], piping), visit, depth + 1) : visit({ ...run, argv: expanded.argv, program: "git" });
        if (aliased !== undefined) return aliased;
      }
      // What the command leaves behind for the commands after it: its directory, its aliases, its links.
      // Only the shell's own cd moves it (`command cd`, `builtin cd` too); `env cd`, `nice cd` run a program that changes nothing.
      let own = commandStart(words);
      while (words[own] === "command" || words[own] === "builtin") own++;
      const shellOwn = words[own] === program;
      if ((program === "cd" || program === "pushd") && !shellOwn) {
        // The program runs and ends: the shell stays where it is.
      } else if (program === "cd" || program === "pushd" || (program === "popd" && shellOwn)) {
        const before = here;
        // After `&&` or `||`, or in a branch or a loop's body, it may not run.
        const conditional = command.after !== undefined || command.branch === true;
        const word = argv.slice(1).join(" ");
        let missing = false;
        if (program === "popd") {
          // `popd -n` takes the entry off the stack and stays; a stack a pushd or popd that may not have run changed is not known.
          const popped = dirs.pop();
          if (!argv.includes("-n")) here = popped === undefined || !dirsKnown ? { ...here, unknownCwd: "popd" } : { ...here, cwd: popped.cwd, unknownCwd: popped.unknownCwd, alsoCwd: popped.alsoCwd };
        } else {
          if (program === "pushd") dirs.push(here);
          if (!(program === "pushd" && argv.includes("-n"))) {
            const vars = new Map([...known, ...env]);
            // `cd -` goes back to where the last cd on the line left from.
            const back = argv[1] === "-" && argv.length === 2 && oldCwd !== undefined && program === "cd";
            const moved = back ? { cwd: oldCwd, unknownCwd: undefined } : changeDirectory(argv.slice(1), here, vars);
            // Read from either folder (an earlier cd that may not have run): the other moves too.
            const other = here.alsoCwd === undefined ? undefined : changeDirectory(argv.slice(1), { ...here, cwd: here.alsoCwd }, vars);
            here = { ...here, ...moved, alsoCwd: other?.unknownCwd === undefined && other?.cwd !== moved.cwd ? other?.cwd : undefined };
            if (other?.unknownCwd !== undefined) here = { ...here, unknownCwd: other.unknownCwd };
          }
          // Into a folder that is not there (and no mkdir on the line made): cd fails. What `&&` joins after it does not run
          // (read as if it had gone there); after the list, the shell is where it was. A line that made files before may
          // have made it (a link, a clone, an extraction): then where the shell is, is not known.
          missing = here.unknownCwd === undefined && here.cwd !== undefined && statOf(here.cwd)?.isDirectory() !== true && !madeDirs.has(here.cwd);
        }
        if (conditional && program !== "cd") dirsKnown = false;
        oldCwd = before.unknownCwd === undefined && before.alsoCwd === undefined ? before.cwd : undefined;
        if (missing && lineMadeFiles()) here = { ...here, unknownCwd: `${word} (a folder the line may have made)` };
        else if (missing) failedCd = { before, word };
        else {
          // In a branch or loop: the commands in its body run after it; once past the compound command, either folder.
          if (command.branch === true) branchCd ??= before;
          // After `||`, or in a list with `||` before it: from here on, either folder (`true || cd x && …` runs without it).
          if (command.after !== undefined && orInList) here = eitherFolder(here, before, word);
          // After `&&` alone: what `&&` joins after it runs only where it ran; once the list goes on otherwise, either folder.
          else if (command.after !== undefined) andCd ??= before;
        }
      } else if (movedBy !== undefined) {
        // `eval 'cd /usr'`, `source f` or a function that changes directory: where it ends is not followed.
        here = { ...here, unknownCwd: movedBy };
      } else if (builtin === "shopt" && argv.includes("-s") && argv.includes("dotglob")) {
        shellVars.set(DOTGLOB, "1");
      } else if (builtin === "unset" && !argv.includes("-f")) {
        for (const name of argv.slice(1).filter((word) => !word.startsWith("-"))) shellVars.delete(name);
      } else if (program === "trap" && argv.slice(2).some((signal) => /^(?:SIG)?(?:DEBUG|RETURN)$/i.test(signal)) && !["-", "", "-p", "-l"].includes(argv[1] ?? "")) {
        // Run before every later command (and OMP's shell keeps it for later calls), where Tama reads the command alone.
        return "this command sets a DEBUG or RETURN trap, whose action runs before or after every later command in this shell (and later calls, in OMP's), where Tama reads each command alone; run the action where it is needed";
      } else if ((program === "hash" && argv.includes("-p")) || (program === "enable" && argv.some((word) => /^-[a-z]*f/.test(word)))) {
        // `hash -p ./x git`, `enable -f ./x.so git`: the shell runs that file for the name from here on (and OMP's keeps it), where Tama reads the program.
        const operands = argv.slice(1).filter((word) => !word.startsWith("-"));
        // `hash -p ./x GIT`: the name a shell on a file system that folds case finds git by.
        const named = operands.slice(1).find((name) => isShadowable(programName(name)));
        if (named !== undefined) return shadows(named, program === "hash" ? "hashed path (hash -p)" : "loadable builtin (enable -f)");
        // `hash -p /usr/bin/git h`: h runs that file from here on, read as an alias to it is.
        if (builtin === "hash" && operands[0] !== undefined) for (const name of operands.slice(1)) aliases.set(name, shellLine([operands[0]]));
      } else if (program === "alias") {
        for (const word of argv.slice(1)) {
          const match = /^([^=\s]+)=(.*)$/s.exec(word);
          if (match && (depth === 0 || here.sameShell === true) && isShadowable(programName(match[1] as string)) && !sameProgram(match[1] as string, match[2] as string)) return shadows(match[1] as string, "alias");
          if (match && builtin === "alias") aliases.set(match[1] as string, match[2] as string);
        }
      } else if (program === "ln" || (program === "cp" && argv.some((a) => /^-[A-Za-z]*s[A-Za-z]*$/.test(a) || a === "--symbolic-link"))) {
        // `cp -rs SRC farm` makes a farm of links: a file written through farm/… lands in SRC/….
        here = { ...here, links: linksMade(argv, { ...here, env }) };
      } else if (program === "cp" || program === "rsync") {
        const copied = linksCopied(argv, here);
        if (copied !== undefined) here = { ...here, links: copied };
      } else if (program === "mv" && here.links !== undefined && here.links.size > 0) {
        here = { ...here, links: linksMoved(argv, here) };
      }
      // Links the command's code makes (`python3 -c 'os.symlink(…)'`) are links for the commands after it.
      const codeLinks = cwdHere === undefined ? [] : code.flatMap((c) => readCode(c.code, c.language).links).filter((l) => !isDynamic(l.link) && !isDynamic(l.target));
      if (codeLinks.length > 0) {
        const links = new Map(here.links ?? []);
        for (const { link, target } of codeLinks) {
          const at = path.resolve(cwdHere ?? "/", link);
          // `os.symlink(os.path.expanduser("~"), "l")`, `symlinkSync(homedir(), "l")`: code reads `~` as the home.
          const named = /^~(?=\/|$)/.test(target) ? (here.home ?? process.env.HOME ?? "/") + target.slice(1) : target;
          links.set(at, path.resolve(path.dirname(at), named));
        }
        here = { ...here, links };
      }
      if (recordWrites(run, inner, pipeText, written)) changedFiles = true;
      // `mkdir -p a/b`, `git worktree add wt`, `git clone u d`, `unzip a.zip -d pkg`: folders (and the folders above them) a cd after it may enter.
      if (cwdHere !== undefined && program !== undefined && FOLDER_MAKERS.has(program)) {
        for (const target of writeTargets(expandedCommand, argv)) {
          if (!MAKES_FOLDER.test(target.effect) || isDynamic(target.word)) continue;
          for (let dir = path.resolve(cwdHere, target.word); dir !== cwdHere && dir !== path.dirname(dir); dir = path.dirname(dir)) madeDirs.add(dir);
        }
      }
      // `tar xzf x.tgz && cd x-1.0`: the folders a read archive's members land in, where nothing is now (a link there would be followed).
      if (cwdHere !== undefined) {
        for (const target of otherWrites) {
          if (target.effect !== UNPACKS) continue;
          for (let dir = path.dirname(path.resolve(cwdHere, target.word)); dir !== cwdHere && dir !== path.dirname(dir) && lstatOf(dir) === undefined; dir = path.dirname(dir)) madeDirs.add(dir);
        }
      }
      let printedHere: { text: string | undefined } | undefined;
      let listedHere: { name: string | undefined } | undefined;
      lastAt.set(command.level, {
        argv,
        env,
        setup: !shellFunction && systemSetup(argv),
        download: (program !== undefined && DOWNLOADERS.has(program)) || previous?.download === true,
        printed: () => (printedHere ??= { text: printedOrRead(argv, expandedCommand, cwdHere, written, pipeText, true) }).text,
        // `git ls-files | grep -v x | xargs …`: a filter prints some of the listing's names as they are.
        listed: () => (listedHere ??= { name: seenWhole(listedName(argv, env, cwdHere), argv, cwdHere, lineMadeFiles()) ?? (command.piped && passesLines(argv) && !takesOtherInput(expandedCommand) ? previous?.listed?.() : undefined) }).name,
        parts: () => printedNames(argv, env, cwdHere) ?? (command.piped && !takesOtherInput(expandedCommand) ? previous?.parts?.() : undefined),
      });
      // A command on a level done, the substitutions inside it are done too.
      if (lastAt.size > 1) for (const level of lastAt.keys()) if (level > command.level) lastAt.delete(level);
      // `select NAME in …` sets NAME to one of its words, as a `for` loop does.
      if ((argv[0] === "for" || argv[0] === "select") && argv[2] === "in" && argv[1] !== undefined) loops.set(argv[1], argv.slice(3));
    }
  }
  return undefined;
}

/**
 * Where the shell is when a cd may or may not have run: both folders (the commands after it
 * read a relative path from each), or, past two, or where one is not known, no known one.
 */
function eitherFolder(after: Scope, before: Scope, word: string): Scope {
  if (after.unknownCwd !== undefined) return after;
  if (before.unknownCwd !== undefined) return { ...after, unknownCwd: before.unknownCwd };
  const places = [...new Set([after.cwd, after.alsoCwd, before.cwd, before.alsoCwd].filter((place): place is string => place !== undefined))];
  if (places.length <= 1) return after;
  if (places.length === 2) return { ...after, cwd: after.cwd ?? places[0], alsoCwd: places.find((place) => place !== after.cwd) };
  return { ...after, unknownCwd: `${word} (which may not have run)` };
}

/** Loop values a command may see: one set of variables per value of each loop variable it uses (a few at most). */
function loopVariants(command: ShellCommand, vars: Map<string, string>, loops: ReadonlyMap<string, string[]>): Map<string, string>[] {
  const text = [...command.argv, ...command.redirects.map((r) => r.target), ...command.assignments.map((a) => a.value)].join(" ");
  let variants = [vars];
  for (const [name, values] of loops) {
    if (!new RegExp(`\\$\\{?${name}\\b`).test(text)) continue;
    variants = variants.flatMap((v) => values.slice(0, 16).map((value) => new Map([...v, [name, value]])));
  }
  return variants.slice(0, 64);
}

/** The variables a word may use: the script's, `$PWD`, `$HOME` and the temporary directory. */
function varsOf(shellVars: ReadonlyMap<string, string>, scope: Scope): Map<string, string> {
  const vars = new Map(shellVars);
  if (!vars.has("HOME")) vars.set("HOME", scope.home ?? (process.env.HOME || os.homedir()));
  if (!vars.has("TMPDIR")) vars.set("TMPDIR", tempDir());
  // bash's default IFS: an unquoted `$IFS` splits a word (`-m x$IFS-n` is `-m x -n`).
  if (!vars.has("IFS")) vars.set("IFS", " \t\n");
  if (scope.cwd !== undefined && scope.unknownCwd === undefined) {
    vars.set("PWD", scope.cwd);
    vars.set(TOPLEVEL, scope.roots ? projectRootIn(scope.roots, scope.cwd) : projectRoot(scope.cwd));
  }
  return vars;
}

/** What `$(mktemp …)` stands for: a new name in the temporary directory that the command itself made. */
export const MKTEMP_NAME = "tmp.mktemp-made-by-this-command";

/** Shell variables that always hold a number. */
const NUMERIC = new Set(["RANDOM", "SRANDOM", "SECONDS", "BASHPID", "PPID", "UID", "EUID", "LINENO", "EPOCHSECONDS"]);

/** The name under which `varsOf` keeps the repository's top level, for `$(git rev-parse --show-toplevel)`. */
const TOPLEVEL = " toplevel";

/** `$NAME`/`${NAME}` replaced where the script's own variables know it; other references stay as written. */
export function expandVars(text: string, vars: ReadonlyMap<string, string>): string {
  // `${f%.js}`, `${f##*/}`: a known value with a prefix or suffix pattern taken off.
  if (text.includes("${")) {
    text = text.replace(/\$\{(\w+)(%%|%|##|#)([^{}]*)\}/g, (whole, name: string, op: string, pattern: string) => {
      const value = vars.get(name);
      return value === undefined || isDynamic(value) || isDynamic(pattern) ? whole : withoutAffix(value, op, pattern);
    });
  }
  // `${X:-default}`, `${X-default}`, `${X:+alt}`, `${X:=default}`: the value, or the default when it is unset.
  // A variable the walker does not know comes from the environment, which the agent does not set (its
  // `env` field and what OMP's shell kept are known): the text the line itself gives is what is read.
  text = text.replace(/\$\{(\w+)(:?)([-=+])([^{}]*)\}/g, (_whole, name: string, colon: string, op: string, word: string) => {
    const value = vars.get(name);
    const set = value !== undefined && (colon === "" || value.length > 0);
    if (op === "+") return set || value === undefined ? expandVars(word, vars) : "";
    return set ? (value as string) : expandVars(word, vars);
  });
  const pattern = /\$\{(\w+|[@*])\}|\$(\w+|[@*])|\$[$!?#]|\$\(\s*pwd\s*\)|`\s*pwd\s*`|\$\(\s*mktemp\b[^()`]*\)|\$\(\s*git rev-parse --show-toplevel\s*\)|\$\(\s*date\s+\+[%A-Za-z0-9_.:-]*\s*\)/g;
  return text.replace(pattern, (whole, braced: string | undefined, plain: string | undefined) => {
    const name = braced ?? plain;
    // Numbers the shell makes (`$$`, `$RANDOM`, `$(date +%s)`) hold no `/`: a name built from them stays where it is.
    if (/^\$[$!?#]$|^\$\(\s*date/.test(whole) || (name !== undefined && NUMERIC.has(name) && !vars.has(name))) return "0";
    // `$(pwd)` is the directory; `$(mktemp …)` a new name in the temporary directory; rev-parse the repository.
    if (name === undefined) {
      if (/mktemp/.test(whole)) return path.join(vars.get("TMPDIR") ?? tempDir(), MKTEMP_NAME);
      return vars.get(/rev-parse/.test(whole) ? TOPLEVEL : "PWD") ?? whole;
    }
    return vars.get((braced ?? plain) as string) ?? whole;
  });
}

/** `${X%pat}` (shortest suffix), `%%` (longest), `#`/`##` (prefix): `value` with the shell pattern's match taken off. */
function withoutAffix(value: string, op: string, pattern: string): string {
  const matcher = textPattern(pattern);
  const cuts = [...Array(value.length + 1).keys()];
  if (op === "%" || op === "%%") {
    // Suffix: from the end (shortest first for %).
    const order = op === "%" ? cuts.reverse() : cuts;
    const at = order.find((i) => matcher.test(value.slice(i)));
    return at === undefined ? value : value.slice(0, at);
  }
  const order = op === "#" ? cuts : cuts.reverse();
  const at = order.find((i) => matcher.test(value.slice(0, i)));
  return at === undefined ? value : value.slice(at);
}

/** The script a command runs from a file this same script wrote: `sh s.sh`, `. ./s.sh`, `./s.sh`. */
/** What a command runs from files: shell scripts to walk, code to read, or why a script is not read. */
interface FileScripts {
  scripts: string[];
  code: RunCode[];
  /** The files read (absolute), so that one running itself again is read once. */
  files: string[];
  /** A shell script's positional parameters (`bash f.sh a b`: `$1` is a). */
  args?: string[];
  refusal?: string;
}

/** The refusal for a script this command line writes, with text Tama cannot read, and then runs. */
export const SCRIPT_WRITTEN_UNREAD = "this command line writes a script and then runs it, and Tama cannot read what the script holds (it is copied, decoded or downloaded in the same line); write the script first with its text in the call, then run it";

/** The refusal for a shell script too large to read. */
export const SCRIPT_TOO_LARGE = `this command runs a shell script larger than ${MAX_SCRIPT / 1024 / 1024} MiB, past what Tama reads; run its commands, or a smaller script`;

/** Interpreters' options that take the next word (not the script). */
/** Interpreters' options that take the next word (not the script), by language (Python's `-I` is a flag, Ruby's takes a folder). */
const INTERPRETER_VALUED: Readonly<Record<CodeLanguage, ReadonlySet<string>>> = {
  python: new Set(["-W", "-X", "--check-hash-based-pycs"]),
  javascript: new Set(["-C", "--conditions", "--title", "--env-file", "--cwd", "--config", "--inspect-port", "--input-type"]),
  unknown: new Set(["-I", "-r", "-C", "-x", "-E", "-M", "-m"]),
  program: new Set(),
};

/** The script file an interpreter runs (`python3 x.py`, `node x.js`, `deno run x.ts`), when no inline code or module is given. */
function interpreterScript(program: string, argv: readonly string[]): { file?: string; module?: string; preloads: string[] } {
  const spec = interpreterSpec(program);
  const preloads: string[] = [];
  if (spec === undefined) return { preloads };
  let args = argv.slice(1);
  if (program === "deno" || program === "bun") {
    if (args[0] === "run") args = args.slice(1);
    // `deno task`, `bun test`, `bun install`: a subcommand, not a file.
    else if (args[0] !== undefined && /^[a-z-]+$/.test(args[0]) && !args[0].includes(".")) return { preloads };
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    // `node -r ./x.js`, `--import ./x.mjs`: files it runs before the program.
    if ((arg === "-r" || arg === "--require" || arg === "--import" || arg === "--loader" || arg === "--experimental-loader") && spec.language === "javascript") {
      preloads.push(args[++i] ?? "");
      continue;
    }
    const glued = /^--(?:require|import|loader|experimental-loader)=(.+)$/.exec(arg);
    if (glued && spec.language === "javascript") {
      preloads.push(glued[1] as string);
      continue;
    }
    if (arg === "-m") return { module: args[i + 1], preloads };
    if (spec.flags.includes(arg) || arg === "--" || arg === "-") return { preloads };
    if (INTERPRETER_VALUED[spec.language].has(arg)) i++;
    else if (!arg.startsWith("-")) return { file: arg, preloads };
  }
  return { preloads };
}

/** The files an interpreter may load for a program word: the word, and node's and Python's resolutions of it. */
function entryCandidates(language: CodeLanguage, word: string, module: boolean): string[] {
  if (module) {
    const base = word.replace(/\./g, "/");
    return [`${base}.py`, `${base}/__main__.py`];
  }
  if (language === "python") return [word, `${word}/__main__.py`];
  return [word, `${word}.js`, `${word}.mjs`, `${word}.cjs`, `${word}.ts`, `${word}/index.js`, `${word}/index.mjs`, `${word}/index.ts`];
}

/** `NODE_OPTIONS='--require ./x.js'`: the files it preloads. */
function nodeOptionPreloads(env: ReadonlyMap<string, string>): string[] {
  const options = env.get("NODE_OPTIONS");
  if (options === undefined) return [];
  const words = options.trim().split(/\s+/);
  return words.flatMap((word, i) => (/^(?:-r|--require|--import|--loader)$/.test(word) ? [words[i + 1] ?? ""] : /^--(?:require|import|loader)=/.test(word) ? [word.slice(word.indexOf("=") + 1)] : []));
}

/** npm's commands that run lifecycle scripts of the package, and which. */
const NPM_LIFECYCLE: Readonly<Record<string, readonly string[]>> = {
  install: ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"],
  ci: ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"],
  pack: ["prepack", "prepare", "postpack"],
  publish: ["prepublishOnly", "prepack", "prepare", "postpack", "publish", "postpublish"],
  version: ["preversion", "version", "postversion"],
  restart: ["prerestart", "restart", "postrestart", "prestop", "stop", "poststop", "prestart", "start", "poststart"],
  rebuild: ["preinstall", "install", "postinstall", "prepare"],
};
const NPM_ALIASES: Readonly<Record<string, string>> = { i: "install", in: "install", ins: "install", inst: "install", insta: "install", instal: "install", add: "install", isnt: "install", isntall: "install", "clean-install": "ci", ic: "ci", "install-clean": "ci", it: "install", "install-test": "install", cit: "ci", "clean-install-test": "ci", rb: "rebuild" };

/** Package managers whose `run SCRIPT` (and, for some, bare `SCRIPT`) runs a package.json script. */
const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);
/** npm's commands that run the script of the same name. */
const NPM_SCRIPT_COMMANDS: Readonly<Record<string, string>> = { test: "test", t: "test", tst: "test", start: "start", stop: "stop", restart: "restart" };

/** The package.json scripts `npm run x`, `npm test`, `pnpm x`, `yarn x`, `bun run x` run (with npm's pre and post scripts). */
function packageScriptsRun(program: string, argv: readonly string[], cwd: string, textOf: (file: string) => string | undefined, reading: ReadonlySet<string> | undefined, files: string[]): string[] {
  if (!PACKAGE_MANAGERS.has(program) && program !== "node") return [];
  let dir = cwd;
  const args: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    // `npm --prefix DIR`, `-C DIR`, `pnpm --dir DIR`, `yarn --cwd DIR`: the package is there.
    if (["--prefix", "-C", "--dir", "--cwd"].includes(arg)) dir = path.resolve(dir, argv[++i] ?? "");
    else if (/^--(?:prefix|dir|cwd)=/.test(arg)) dir = path.resolve(dir, arg.slice(arg.indexOf("=") + 1));
    else if (["-w", "--workspace", "--filter", "-F", "--loglevel", "--registry", "--cache", "--userconfig", "--globalconfig", "--tag", "--otp"].includes(arg)) {
      // A workspace named by its folder: its own package.json.
      const value = argv[++i] ?? "";
      if ((arg === "-w" || arg === "--workspace") && value.length > 0) dir = path.resolve(dir, value);
    } else if (!arg.startsWith("-")) args.push(arg);
  }
  // `node --run x` runs package.json's script x (without pre and post scripts).
  const nodeRun = program === "node" ? argv.findIndex((arg) => arg === "--run") : -1;
  if (program === "node") {
    const name = nodeRun === -1 ? argv.find((arg) => arg.startsWith("--run="))?.slice("--run=".length) : argv[nodeRun + 1];
    const scripts = name === undefined ? undefined : packageScripts(dir, textOf);
    return name === undefined || scripts?.[name] === undefined ? [] : [scripts[name] as string];
  }
  const verb = args[0] === undefined ? (program === "yarn" ? "install" : undefined) : (NPM_ALIASES[args[0]] ?? args[0]);
  if (verb === undefined) return [];
  let names: readonly string[] = [];
  if (verb === "run" || verb === "run-script" || verb === "rum" || verb === "urn") names = args[1] === undefined ? [] : [`pre${args[1]}`, args[1], `post${args[1]}`];
  else if (NPM_SCRIPT_COMMANDS[verb] !== undefined) {
    const name = NPM_SCRIPT_COMMANDS[verb] as string;
    names = NPM_LIFECYCLE[verb] ?? [`pre${name}`, name, `post${name}`];
  } else if (NPM_LIFECYCLE[verb] !== undefined) names = NPM_LIFECYCLE[verb] as readonly string[];
  // pnpm, yarn and bun run a script named as the command, when no command of theirs has that name.
  else if (program !== "npm") names = [`pre${verb}`, verb, `post${verb}`];
  // `npm install-test`, `npm it`: the install's scripts, then the test's.
  if (args[0] === "it" || args[0] === "install-test" || args[0] === "cit" || args[0] === "clean-install-test") names = [...names, "pretest", "test", "posttest"];
  if (names.length === 0) return [];
  // A script that runs itself again (`build: npm run build --workspaces`) is read once.
  const key = `package.json scripts of ${dir}: ${names.join(" ")}`;
  if (reading?.has(key)) return [];
  files.push(key);
  const scripts = packageScripts(dir, textOf);
  if (scripts === undefined) return [];
  // The words after the script's name (after `--`) are passed on to it: `npm run commit -- --no-verify`.
  const named = verb === "run" || verb === "run-script" || verb === "rum" || verb === "urn" ? args[1] : verb;
  const at = named === undefined ? -1 : argv.indexOf(named);
  const rest = at === -1 ? [] : argv.slice(at + 1).filter((word, i) => !(i === 0 && word === "--"));
  const main = named === undefined ? undefined : names.find((name) => name === named || name === NPM_SCRIPT_COMMANDS[named]);
  // `npm start` with no start script runs `node server.js`.
  if (verb === "start" && scripts.start === undefined && program === "npm") return ["node server.js"];
  return names.flatMap((name) => (scripts[name] === undefined ? [] : [name === main && rest.length > 0 ? `${scripts[name]} ${shellLine(rest)}` : (scripts[name] as string)]));
}

/**
 * The scripts a command runs from files: one the same line wrote first, or one on disk
 * (`bash x.sh`, `source x.sh`, `./x.sh` by its `#!` line, `python3 x.py`, `node x.js`),
 * and package.json's scripts (`npm run x`). An agent writes a file with one call and
 * runs it with the next; what it holds is read as a command line or as code.
 */
function scriptFiles(
  program: string | undefined,
  argv: readonly string[],
  scope: Scope,
  written: WrittenFiles,
  stdin: readonly string[],
  env: ReadonlyMap<string, string>,
  /** What a `<( )` prints, when the walker can tell. */
  substituted: (word: string) => string | undefined = () => undefined,
): FileScripts {
  const none: FileScripts = { scripts: [], code: [], files: [] };
  if (program === undefined || argv[0] === undefined) return none;
  // After `cd $(…)` a relative file's place is unknown (the gates say so for their targets).
  const cwd = scope.unknownCwd === undefined ? scope.cwd ?? process.cwd() : undefined;
  const files: string[] = [];
  let unread = false;
  let unreadPrinted: string | undefined;
  let overBudget = false;
  const home = scope.home ?? process.env.HOME ?? "";
  const read = (given: string): ScriptFile => {
    // Its stdin is what the line feeds it; another descriptor or the gate's own /proc is not the agent's shell's.
    if (STDIN_FILES.has(given)) return stdin.length > 0 ? { text: stdin.join("\n") } : { missing: true };
    if (/^\/(?:dev\/fd|proc\/(?:self|thread-self|\d+)\/fd)\//.test(given)) return { missing: true };
    // `python3 <(echo …)`, `BASH_ENV=<(…) bash`: the file is what the substitution prints; one no reader can tell runs unread.
    if (given.startsWith("<(")) {
      const text = substituted(given);
      if (text !== undefined) return { text };
      unreadPrinted = given;
      return { missing: true };
    }
    // `~/f.sh`, `f*.sh` (the shell runs the first match).
    const word = agentsPath(given.replace(/^~(?=\/)/, home), cwd);
    const matched = /[*?[]/.test(word) && cwd !== undefined ? globMatches(word, cwd)[1] : undefined;
    const file = path.resolve(cwd ?? "/", matched ?? word);
    if (scope.reading?.has(file)) return { missing: true };
    files.push(file);
    const state = written.state(fileKey(file, scope.links, written));
    if (state !== undefined && "text" in state) return { text: state.text };
    if (state !== undefined) {
      unread = true;
      return { missing: true };
    }
    // A link this line made is followed as the shell will follow it (`ln -sf y.txt x.sh; bash x.sh` runs y.txt).
    const found = cwd === undefined && !path.isAbsolute(word) ? ({ missing: true } as const) : readScriptFile(throughLinks(file, scope.links));
    if ("text" in found && scope.budget?.fileText !== undefined) {
      scope.budget.fileText -= found.text.length;
      if (scope.budget.fileText < 0) overBudget = true;
    }
    return found;
  };
  // package.json as this line left it (`echo '{…}' > package.json; npm run x`).
  const lineText = (file: string): string | undefined => {
    if (writtenUnread(file, written, scope.links)) unread = true;
    return fileTextOf(file, written, scope.links);
  };
  const done = (result: Omit<FileScripts, "files">): FileScripts =>
    overBudget
      ? { ...none, refusal: TOO_DEEP }
      : unreadPrinted !== undefined
        ? { ...none, refusal: `this command runs what \`${unreadPrinted.slice(2, -1).slice(0, 60)}\` prints as a script, which Tama cannot read; write the script to a file, read it, and run that` }
        : unread
          ? { ...none, refusal: SCRIPT_WRITTEN_UNREAD }
          : { ...result, files };
  // A shell script sees its own path as `$0` (and `${BASH_SOURCE[0]}`) and the words after it as `$1`, `"$@"`.
  const shellScript = (file: ScriptFile, word: string, args: readonly string[]): FileScripts =>
    "text" in file ? done({ scripts: [allArgs(boundScript(file.text, word), args)], code: [], args: [...args] }) : "tooLarge" in file ? { ...none, refusal: SCRIPT_TOO_LARGE } : done({ scripts: [], code: [] });
  const codeOf = (file: ScriptFile, language: CodeLanguage): FileScripts =>
    // Code too large to read is run unread, as code built at run time is (the README says so).
    "text" in file && file.text.length <= MAX_CODE_FILE ? done({ scripts: [], code: [{ code: file.text, language, fromFile: true }] }) : done({ scripts: [], code: [] });
  // A program found through a PATH the command sets itself (`PATH=.:$PATH x`) runs as `./x` would.
  const first = argv[0].includes("/") ? argv[0] : pathLookup(argv[0], env, cwd);
  if (first !== undefined) {
    const file = read(first);
    const text = "text" in file ? file.text : "head" in file ? file.head : undefined;
    if (text === undefined) return done({ scripts: [], code: [] });
    // Run by the interpreter its `#!` line names; with none, or a shell's, by a shell.
    const bang = shebang(text);
    const runsPython = bang !== undefined && (bang.program === "uv" || bang.program === "pipx") && bang.args.includes("run");
    const spec = bang === undefined ? undefined : runsPython ? interpreterSpec("python3") : interpreterSpec(bang.program);
    if (spec !== undefined) return codeOf(file, spec.language);
    if (bang === undefined || SHELLS.has(bang.program)) return shellScript(file, first, argv.slice(1));
    // Any other program is given the file as its first operand (`#!/usr/bin/make -f`, `#!/usr/bin/awk -f`): read as that command line.
    return done({ scripts: [shellLine([bang.program, ...bang.args, first, ...argv.slice(1)])], code: [] });
  }
  if (SHELLS.has(program) || program === "source" || program === ".") {
    const startup: string[] = [];
    // BASH_ENV (ENV for sh) names a file a non-interactive shell reads first.
    for (const name of ["BASH_ENV", "ENV"]) {
      const value = env.get(name);
      if (value !== undefined && value.length > 0 && SHELLS.has(program)) {
        const text = read(value);
        if ("text" in text) startup.push(text.text);
      }
    }
    // `-c` runs a string, `-s` its stdin (nestedScripts reads both).
    if (argv.slice(1).some((w) => /^-[A-Za-z]*[cs][A-Za-z]*$/.test(w))) return done({ scripts: startup, code: [] });
    let file: string | undefined;
    let at = argv.length;
    for (let i = 1; i < argv.length; i++) {
      const word = argv[i] as string;
      if (word === "--rcfile" || word === "--init-file") {
        const rc = read(argv[++i] ?? "");
        if ("text" in rc) startup.push(rc.text);
      } else if (SHELL_ARG_OPTIONS.has(word) || /^[-+][A-Za-z]*[oO]$/.test(word)) i++;
      else if (word === "--") {
        file = argv[i + 1];
        at = i + 1;
        break;
      } else if (!word.startsWith("-") && !word.startsWith("+")) {
        file = word;
        at = i;
        break;
      }
    }
    if (file === undefined || STDIN_FILES.has(file) || file.startsWith("<(")) return done({ scripts: startup, code: [] });
    const main = shellScript(read(file), file, argv.slice(at + 1));
    return main.refusal !== undefined ? main : { ...main, scripts: [...startup, ...main.scripts] };
  }
  // `uv run x.py`, `pdm run x.py`: a runner hands the file to its interpreter.
  const byExtension = /\.py$/.test(program) ? "python3" : /\.(?:m?js|cjs|ts)$/.test(program) ? "node" : undefined;
  if (byExtension !== undefined && cwd !== undefined) {
    const file = read(argv[0]);
    const language = interpreterSpec(byExtension)?.language;
    if ("text" in file && language !== undefined) return codeOf(file, language);
  }
  const spec = interpreterSpec(program);
  if (spec !== undefined) {
    const { file: script, module, preloads } = interpreterScript(program, argv);
    // The files it preloads (`node -r ./x.js`, NODE_OPTIONS), then its program: a file (node's and Python's resolution of it), a module, or stdin.
    const code: RunCode[] = [];
    const take = (file: ScriptFile): boolean => {
      if (!("text" in file)) return false;
      if (file.text.length <= MAX_CODE_FILE) code.push({ code: file.text, language: spec.language, fromFile: true });
      return true;
    };
    for (const preload of [...preloads, ...(spec.language === "javascript" ? nodeOptionPreloads(env) : [])]) entryCandidates(spec.language, preload, false).some((candidate) => take(read(candidate)));
    const entry = script ?? module;
    const found = entry !== undefined && (entry.startsWith("<(") ? take(read(entry)) : entryCandidates(spec.language, entry, script === undefined).some((candidate) => take(read(candidate))));
    if (!found && script === undefined && module === undefined && stdin.length > 0 && inlineCodeOf(program, argv).length === 0) {
      // `python3 < f.py`, `node <<< '…'`: the program on stdin.
      const text = stdin.join("\n");
      if (text.length <= MAX_CODE_FILE) code.push({ code: text, language: spec.language, fromFile: true });
    }
    // `bun run x` with no file x runs package.json's script x.
    const scripts = !found && (PACKAGE_MANAGERS.has(program) || program === "node") && cwd !== undefined ? packageScriptsRun(program, argv, cwd, lineText, scope.reading, files) : [];
    return done({ scripts, code });
  }
  return cwd === undefined ? none : done({ scripts: packageScriptsRun(program, argv, cwd, lineText, scope.reading, files), code: [] });
}

/** Where a program is found on a PATH the command line set (one that differs from the process's): undefined otherwise. */
function pathLookup(program: string, env: ReadonlyMap<string, string>, cwd: string | undefined): string | undefined {
  const given = env.get("PATH");
  if (given === undefined || given === process.env.PATH || cwd === undefined) return undefined;
  for (const dir of given.split(":").slice(0, 32)) {
    if (isDynamic(dir)) continue;
    const candidate = path.resolve(cwd, dir === "" ? "." : dir, program);
    if ("missing" in readScriptFile(candidate)) continue;
    return candidate;
  }
  return undefined;
}

/** An interpreter's spec by its name (`python3.12` as `python3`). */
function interpreterSpec(program: string): { flags: readonly string[]; language: CodeLanguage } | undefined {
  return INTERPRETERS[program] ?? INTERPRETERS[program.replace(/[\d.]+$/, "")];
}

/** A shell script's text with `$0` (and `${BASH_SOURCE[0]}`) as its path (its `$1`… are set in its scope: a function's own are its call's). */
function boundScript(text: string, word: string): string {
  const self = shellLine([word]);
  return text.replace(/"\$\{?0\}?"|\$\{?0\}?(?!\w)|"\$\{BASH_SOURCE(?:\[0\])?\}"|\$\{BASH_SOURCE(?:\[0\])?\}/g, self);
}

/** A file's text as this command line left it: written by it with known text, else from disk (undefined: not readable, or written with text not known). */
/**
 * The key a written file is kept under: its path through the links this line made. A
 * key is matched through links on disk too (`d/x.sh` with `d` a link to `.` is `x.sh`),
 * resolved only when the line has written something and the plain key missed: most
 * commands pay nothing for it.
 */
function fileKey(file: string, links: ReadonlyMap<string, string> | undefined, written: WrittenFiles): string {
  return written.keyFor(throughLinks(file, links));
}

/** Whether the line wrote `file` in a way no reader can know (decoded, copied, or under another spelling). */
function writtenUnread(file: string, written: WrittenFiles, links?: ReadonlyMap<string, string>): boolean {
  if (written.isEmpty()) return false;
  const state = written.state(fileKey(file, links, written));
  return state !== undefined && "opaque" in state;
}

function fileTextOf(file: string, written: WrittenFiles, links?: ReadonlyMap<string, string>): string | undefined {
  if (written.isEmpty()) {
    const read = readScriptFile(throughLinks(file, links));
    return "text" in read ? read.text : undefined;
  }
  const state = written.state(fileKey(file, links, written));
  if (state !== undefined) return "text" in state ? state.text : undefined;
  const read = readScriptFile(file);
  return "text" in read ? read.text : undefined;
}

/** Programs that print (a part of) the text they read: what they print is taken to be that text. */
const PASSES_TEXT = new Set(["cat", "tac", "tr", "head", "tail", "sort", "uniq", "dos2unix", "fold", "expand", "unexpand", "rev", "tee", "dd"]);

/** Of those, the ones whose output is not (a part of) their input's text. */
const CHANGES_TEXT = new Set(["rev", "tr"]);

/** Their options whose value is the next word. */
const PASSES_TEXT_VALUED: Record<string, readonly string[]> = {
  head: ["-n", "-c", "--lines", "--bytes"],
  tail: ["-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid", "--max-unchanged-stats"],
  sort: ["-k", "--key", "-t", "--field-separator", "-o", "--output", "-S", "--buffer-size", "-T", "--temporary-directory", "--parallel", "--batch-size", "--compress-program", "--files0-from", "--random-source", "--sort"],
  uniq: ["-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars"],
  fold: ["-w", "--width"],
  expand: ["-t", "--tabs"],
  unexpand: ["-t", "--tabs"],
};

/** What a command prints when the walker can tell: printedBy's, or the text of the files `cat`, `tr`, `head`, … read (operands or `<`). */
function printedOrRead(argv: readonly string[], command: ShellCommand, cwd: string | undefined, written: WrittenFiles, stdin?: string, withExpansions = false): string | undefined {
  const printed = printedBy(argv, command, withExpansions);
  const program = argv[0] === undefined ? undefined : spelledProgram(argv[0]);
  if (printed !== undefined || program === undefined || !PASSES_TEXT.has(program)) return printed;
  // rev and tr print another text than they read: what, the walker does not work out.
  if (CHANGES_TEXT.has(program)) return undefined;
  // tr reads only stdin; the others their file operands, else stdin (`head -n 50`: 50 is the option's value).
  const valued = PASSES_TEXT_VALUED[program] ?? [];
  const operands = program === "tr" ? [] : argv.slice(1).filter((word, i, all) => !word.startsWith("-") && !(i > 0 && valued.includes(all[i - 1] as string)));
  const files = [...operands, ...command.redirects.filter((r) => r.op === "<").map((r) => r.target)];
  // No file: what it was piped (`echo 'cmd' | cat | sh`), `-` too; or its here-string (`head -n 5 <<< …`).
  if (files.every((file) => STDIN_FILES.has(file)) && command.stdin.length === 0) return stdin;
  if (files.length === 0 && command.stdin.length > 0) return command.stdin.join("\n");
  // tee's operands are files it writes, dd's input is `if=`: both print their stdin.
  if ((program === "tee" || (program === "dd" && !argv.some((word) => word.startsWith("if=")))) && command.stdin.length === 0) return stdin;
  if (cwd === undefined) return undefined;
  if (files.length === 0 || files.length > 16 || files.some((file) => isDynamic(file))) return undefined;
  // A file that is not there (and the line did not write) gives nothing: `cat missing.sh | bash` runs an empty script.
  const texts = files.map((file) => {
    const at = path.resolve(cwd, file);
    return fileTextOf(at, written) ?? (statOf(at) === undefined && lstatOf(at) === undefined && (written.isEmpty() || written.state(at) === undefined) ? "" : undefined);
  });
  return texts.every((text) => text !== undefined) ? texts.join("") : undefined;
}

function isFolder(file: string): boolean {
  return statOf(file)?.isDirectory() === true;
}

/**
 * Compilers, linkers and bundlers: their output is a program or a bundle built from the
 * project's sources. Run on the same line (`gcc -o hello hello.c && ./hello`) it is not
 * refused as text Tama cannot read; run by a later call, a bundle is read as any file is.
 */
const BUILDS_PROGRAMS = new Set(["cc", "gcc", "g++", "c++", "clang", "clang++", "ld", "as", "rustc", "go", "javac", "tcc", "nasm", "strip", "cargo", "zig", "tsc", "esbuild"]);

/** Writers' effects that leave a file's text as it was (`chmod +x s.sh && ./s.sh`). */
const KEEPS_TEXT = /^(changes the (mode|owner|group|attributes|ACL) of|touches|makes a directory in)$/;

/**
 * What a command leaves in files for the commands after it on the line: the text it
 * prints into them (`echo 'cmd' > s.sh; sh s.sh`), a copy's source text (`cp a s.sh`),
 * or, for any other write, that their text is no longer known (`base64 -d > s.sh`).
 * Whether it changed any file at all (`touch`, `mkdir` too).
 */
function recordWrites(run: RunCommand, scope: Scope, pipeText: string | undefined, written: WrittenFiles): boolean {
  const { argv, program, command } = run;
  const cwd = scope.unknownCwd === undefined ? scope.cwd ?? process.cwd() : undefined;
  const changes = [...writeTargets(command, argv), ...run.otherWrites, ...codeWriteTargets(run)];
  const targets = changes.filter((target) => !KEEPS_TEXT.test(target.effect) && !isDynamic(target.word) && (cwd !== undefined || path.isAbsolute(target.word)));
  if (targets.length === 0) return changes.length > 0;
  const resolve = (word: string): string => fileKey(path.resolve(cwd ?? "/", word), scope.links, written);
  const printed = printedOrRead(argv, command, cwd, written, pipeText) ?? (program === "tee" ? pipeText : undefined);
  const known = new Map<string, string>();
  if (printed !== undefined) {
    const printedTo = [...command.redirects.filter((r) => r.op === ">" || r.op === ">>" || r.op === ">|").map((r) => r.target), ...(program === "tee" ? argv.slice(1).filter((w) => !w.startsWith("-")) : [])];
    for (const target of printedTo) {
      const file = resolve(target);
      const append = command.redirects.some((r) => r.op === ">>" && r.target === target) || (program === "tee" && argv.includes("-a"));
      const before = written.state(file);
      known.set(file, append ? `${before !== undefined && "text" in before ? before.text : ""}\n${printed}` : printed);
    }
  }
  // `cp SRC DEST`, `mv SRC DEST`, `install SRC DEST`, `ln -s SRC DEST`: DEST holds SRC's text.
  if ((program === "cp" || program === "mv" || program === "install" || program === "ln") && cwd !== undefined) {
    const operands = argv.slice(1).filter((word) => !word.startsWith("-"));
    if (operands.length === 2) {
      // Into a folder (`cp tpl/x.sh .`), the file lands under the source's name.
      const dest = resolve(operands[1] as string);
      const into = (operands[1] as string).endsWith("/") || isFolder(dest) ? path.join(dest, path.basename(operands[0] as string)) : dest;
      const text = fileTextOf(resolve(operands[0] as string), written);
      if (text !== undefined) known.set(into, text);
      if (into !== dest) targets.push({ word: into, effect: "copies over", reachesBelow: false });
    }
  }
  // A compiler's or linker's output is a program, not a script (`gcc -o hello hello.c && ./hello`): nothing to read.
  if (program !== undefined && BUILDS_PROGRAMS.has(program)) return true;
  for (const target of targets) {
    const file = resolve(target.word);
    const text = known.get(file);
    written.record(file, text !== undefined ? { text } : { opaque: true });
  }
  return true;
}

/** What `echo …`, `printf …` or `cat` of a here-document prints, when it is all literal; else undefined. */
export function printedBy(argv: readonly string[], command: ShellCommand, withExpansions = false): string | undefined {
  const program = argv[0] === undefined ? undefined : spelledProgram(argv[0]);
  const args = argv.slice(1);
  let text: string | undefined;
  // Escapes (`\055`, `\x2d`, `%c`, `%b`) make text no reader here decodes: unknown, not taken literally.
  if (program === "echo") text = args.some((w) => w.includes("\\")) ? undefined : args.filter((w, i) => !(i === 0 && /^-[neE]+$/.test(w))).join(" ");
  else if (program === "printf") {
    const words = args.filter((w) => w !== "--");
    // `printf -v X …` sets X and prints nothing.
    if (words[0] === "-v") return "";
    const escapes = words.some((w) => /\\(?![nt\\])/.test(w)) || /%(?![s%])/.test(words[0] ?? "");
    text = escapes ? undefined : printfText(words[0] ?? "", words.slice(1)).replace(/\\n/g, "\n").replace(/\\t/g, "\t");
  }
  else if (program === "cat" && args.length === 0 && command.stdin.length > 0) text = command.stdin.join("\n");
  // `cd "$(dirname "$0")"`: the path functions print a literal's part.
  // A listed name stands for a folder under the place listed as well, at any depth (its own folder too): it is kept.
  else if (program === "dirname" && args.length === 1) text = LISTED_IN_WORD.test(args[0] as string) ? (args[0] as string) : path.dirname(args[0] as string);
  else if (program === "basename" && args.length === 1) text = path.basename(args[0] as string);
  // Text holding expansions is no literal; as a script it is still text to read (`cat <<'EOF' | bash` with `$PORT` in it).
  return text === undefined || (!withExpansions && isDynamic(text)) ? undefined : text;
}

/** printf's output for a format of literal text and `%s` (and `%%`): the format is used again while arguments are left, as printf does. */
function printfText(format: string, args: readonly string[]): string {
  const slots = format.match(/%s/g)?.length ?? 0;
  const fill = (chunk: readonly string[]): string => {
    let at = 0;
    return format.replace(/%%|%s/g, (spec) => (spec === "%%" ? "%" : chunk[at++] ?? ""));
  };
  if (slots === 0 || args.length === 0) return fill([]);
  let out = "";
  for (let i = 0; i < args.length; i += slots) out += fill(args.slice(i, i + slots));
  return out;
}

/** What a command prints, when the walker can tell (printedBy, or with the files it reads: printedOrRead); `cwd`: where it runs. */
type Printer = ((argv: readonly string[], command: ShellCommand) => string | undefined) & { cwd?: string };

/** What the command line `inner` prints: its one command's, the file of `$(< f)`, or the folder of `$(cd DIR && pwd)`. */
function printedByLine(inner: string, printer: Printer): string | undefined {
  // `sh -c 'cp x "$(dirname "$1")/…"' _ ARG`: a positional parameter still in the text is bound later (withArgs); not worked out before.
  if (/\$(?:\{?[0-9@*#])/.test(inner)) return undefined;
  const commands = parseShell(inner);
  const [only, second] = commands;
  // `$(realpath X)`, `$(readlink -f X)`: the path, resolved where the line is.
  if (commands.length === 1 && only !== undefined && printer.cwd !== undefined && ((only.argv[0] === "realpath" && only.argv.length === 2) || (only.argv[0] === "readlink" && only.argv.length === 3 && /^-[fem]$/.test(only.argv[1] as string)))) {
    const target = only.argv.at(-1) as string;
    return isDynamic(target) ? undefined : path.resolve(printer.cwd, target);
  }
  if (commands.length === 2 && only?.argv[0] === "cd" && only.argv.length === 2 && second?.argv.length === 1 && second.argv[0] === "pwd" && printer.cwd !== undefined) {
    const dir = only.argv[1] as string;
    return isDynamic(dir) ? undefined : path.resolve(printer.cwd, dir);
  }
  if (only === undefined) return undefined;
  // `$(command -v wc)`, `$(which python3)`: the program, found on PATH (its name stands for it).
  if (commands.length === 1 && ((only.argv[0] === "command" && only.argv[1] === "-v") || (only.argv[0] === "type" && only.argv[1] === "-P")) && only.argv.length === 3 && !isDynamic(only.argv[2] as string)) return only.argv[2];
  if (commands.length === 1 && only.argv[0] === "which" && only.argv.length === 2 && !isDynamic(only.argv[1] as string)) return only.argv[1];
  const printed = (command: ShellCommand): string | undefined =>
    command.argv.length === 0 && command.redirects.length === 1 && command.redirects[0]?.op === "<" ? printer(["cat", command.redirects[0].target], { ...command, redirects: [] }) : printer(command.argv, command);
  if (commands.length === 1) return printed(only);
  // `echo; cat`: a list of commands each printing what the walker can tell prints their texts in turn.
  if (commands.length > 8 || commands.some((command) => command.piped || command.level > 0)) return undefined;
  const texts = commands.map(printed);
  return texts.every((text) => text !== undefined) ? texts.join("\n") : undefined;
}

/** `<(echo 'shell …')`, `<(cat f.sh)`: the text a process substitution's file holds, when the walker can tell. */
function substitutionText(word: string, printer: Printer = printedBy): string | undefined {
  const sub = /^<\((.*)\)$/s.exec(word)?.[1];
  return sub === undefined ? undefined : printedByLine(sub, printer);
}

/** `$(echo git commit -n)`, `` `printf git` ``, `$(cat f)`: a substitution of printed text is that text; undefined for any other word. */
function printedText(word: string, printer: Printer = printedBy): string | undefined {
  const match = /^\$\(([^()`]*)\)$|^`([^`]*)`$/.exec(word);
  return match ? printedByLine(match[1] ?? match[2] ?? "", printer) : undefined;
}

/** `"$(dirname "$0")/run.sh"`: each substitution inside a word replaced by what it prints, where the walker can tell. */
function substitutedInWord(word: string, printer: Printer): string {
  if (!word.includes("$(") && !word.includes("`")) return word;
  return word.replace(/\$\(([^()`]*)\)|`([^`]*)`/g, (whole, a: string | undefined, b: string | undefined) => printedByLine(a ?? b ?? "", printer)?.replace(/\n+$/, "") ?? whole);
}

/** `read NAME`, `printf -v NAME …`, `mapfile NAME`: the variable gets a value no reader saw. */
export function setByBuiltin(words: readonly string[], command: ShellCommand, vars: Map<string, string>): void {
  const program = words[0];
  if (program === "printf") {
    const at = words.indexOf("-v");
    // `printf -v X -- FORMAT …`: `--` ends printf's options.
    const from = words[at + 2] === "--" ? at + 3 : at + 2;
    const format = words[from];
    // `printf -v X %s .env`: the one argument as it is.
    const printed = format === "%s" && words.length === from + 2 && !isDynamic(words[from + 1] as string) ? words[from + 1] : format !== undefined && !/%|\\/.test(format) ? format : undefined;
    // A value no reader saw, marked by a command no printer knows (`$(printf)` would read as printing nothing).
    if (at > 0 && words[at + 1] !== undefined) vars.set(words[at + 1] as string, printed ?? "$(printf-v)");
  } else if (program === "read" || program === "mapfile" || program === "readarray") {
    const names = words.slice(1).filter((w, i, all) => /^[A-Za-z_]\w*$/.test(w) && !/^-[adinNpt]$/.test(all[i - 1] ?? ""));
    const given = command.stdin[0]?.trim();
    names.forEach((name, i) => vars.set(name, program === "read" && given !== undefined && names.length === 1 && i === 0 && !isDynamic(given) ? given : "$(read)"));
  }
}

/**
 * Programs the gates read by name. OMP's bash keeps functions and aliases from one
 * call to the next, so a function named git (`git() { command git "$@" --no-verify; }`)
 * would change what every later call's `git` does, where Tama reads git.
 */
const SHADOWABLE = new Set([
  "git", "rm", "rmdir", "find", "tama", "cd", "pushd", "popd", "eval", "source", ".", "exec", "command", "builtin", "export", "declare", "typeset",
  "unset", "set", "alias", "unalias", "shopt", "trap", "command_not_found_handle", "curl", "wget", "cat", "xargs", "make", "npm", "npx", "pnpm", "yarn", "gh", "hub", "ln", "cp", "mv",
]);

function isShadowable(name: string): boolean {
  return SHADOWABLE.has(name) || SHELLS.has(name) || name in WRAPPERS || name in INTERPRETERS || isWriter(name) || name.startsWith("git-");
}

/**
 * The first program a PATH's own directories hold under a name the gates read, that
 * the agent could have put there and Tama cannot read in its place. Only directories
 * in the project or the temporary directory are looked in: the write gates keep the
 * agent's files there, and a PATH the person's tools set up (`~/.cargo/bin`, a
 * version manager's, `~/.local/bin`) holds what they installed. There, a link to a
 * program of the same name outside them (a virtualenv's `python`) is that program, and a script (a
 * `node_modules/.bin` entry, a wrapper the agent wrote) is read where it runs, as
 * `./script` is; a binary named like git, rm, a shell or another program the gates
 * read by name is not read, and is what this names.
 */
function shadowedOnPath(value: string, cwd: string): string | undefined {
  const system = new Set((process.env.PATH ?? "").split(":"));
  const places = [projectRoot(cwd), realPath(tempDir())];
  const agents = (file: string): boolean => places.some((place) => isInside(place, file));
  for (const dir of value.split(":")) {
    // An empty part is the cwd.
    if (system.has(dir) || isDynamic(dir)) continue;
    let at: string;
    let names: readonly string[];
    try {
      at = realpathOf(path.resolve(cwd, dir || "."));
      if (!agents(at)) continue;
      names = namesIn(at);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!SHADOWABLE.has(name) && !SHELLS.has(name) && !name.startsWith("git-")) continue;
      const file = path.join(at, name);
      let real: string;
      try {
        real = realpathOf(file);
      } catch {
        continue;
      }
      // Installed elsewhere under its own name (`python` → python3.12): that program. Another program linked under the name is not.
      if (!agents(real) && path.basename(real).startsWith(name.replace(/[\d.]+$/, ""))) continue;
      const read = readScriptFile(real);
      if ("text" in read || "missing" in read) continue;
      // git runs its own commands before any git-* on PATH: one there (git-lfs, git-absorb) only runs as `git lfs`,
      // a program of its own, unless it is a copy of another program the gates read (a shell named git-x).
      if (name.startsWith("git-")) {
        const copied = copiedProgram(real, readByName);
        if (copied === undefined || path.basename(copied).startsWith("git")) continue;
      }
      return path.join(dir, name);
    }
  }
  return undefined;
}

/**
 * A path as the agent's shell takes it where the gate's process would take it otherwise:
 * `/proc/self/cwd/…` is the shell's directory, `/proc/self/root/…` the root.
 */
function agentsPath(word: string, cwd: string | undefined): string {
  const proc = /^\/proc\/(?:self|thread-self)\/(cwd|root)(?=\/|$)/.exec(word);
  if (proc === null) return word;
  const base = proc[1] === "root" ? "/" : cwd;
  return base === undefined ? word : path.join(base, word.slice(proc[0].length) || ".");
}

/** Programs that run as what their name says (`busybox rm`, a link named rm): a link to one is read by its own name. */
const MULTI_CALL = new Set(["busybox", "toybox", "coreutils", "uutils"]);

/** The names a copy of a system program is looked up among: every program the gates read by name. */
const readByName = (): Iterable<string> =>
  new Set([...SHADOWABLE, ...SHELLS, ...Object.keys(WRAPPERS), ...Object.keys(INTERPRETERS), ...writerNames(), "sudo", "doas", "su", "pkexec", "git", "gh", "hub", "curl", "wget"]);

/**
 * The file a command word runs, as the agent's shell finds it, where it is not simply the
 * system's PATH finding a name: a path (`./g`, `~/g`, `/proc/self/cwd/g`), or a bare name
 * found in a PATH's own directories (`""` is the cwd) before the system's. Undefined for
 * the common case and for what cannot be told.
 */
function commandFile(word: string, cwd: string | undefined, pathValue: string | undefined, home: string): string | undefined {
  // Most commands: a bare name under the system's PATH.
  if ((pathValue === undefined || pathValue === process.env.PATH) && !word.includes("/")) return undefined;
  if (isDynamic(word)) return undefined;
  let file: string | undefined;
  const given = agentsPath(word.replace(/^~(?=\/)/, home), cwd);
  if (given.startsWith("~")) return undefined;
  if (given.includes("/")) {
    if (cwd === undefined && !path.isAbsolute(given)) return undefined;
    // Joined as text, not resolved: `l/../g` climbs from where the link l leads, as the kernel walks it.
    file = path.isAbsolute(given) ? given : `${cwd}/${given}`;
  } else if (pathValue !== undefined && cwd !== undefined) {
    const system = new Set((process.env.PATH ?? "").split(":"));
    // `PATH="$PWD/bin:$PATH"`: the PATH it adds to is the environment's.
    const dirs = pathValue.replace(/\$\{?PATH\}?(?!\w)/g, process.env.PATH ?? "").split(":");
    // Past the PATH's last directory of its own, the rest is the system's order: nothing to look for there.
    let last = dirs.length - 1;
    while (last >= 0 && system.has(dirs[last] as string)) last--;
    for (const dir of dirs.slice(0, last + 1)) {
      // A directory built at run time (`$(go env GOPATH)/bin`) cannot be looked in.
      if (isDynamic(dir)) continue;
      const candidate = `${dir === "" ? cwd : path.isAbsolute(dir) ? dir : `${cwd}/${dir}`}/${word}`;
      if (statOf(candidate)?.isFile() !== true) continue;
      if (!system.has(dir)) file = candidate;
      break;
    }
  }
  if (file === undefined) return undefined;
  try {
    return realpathOf(file);
  } catch {
    return undefined;
  }
}

/** Where the agent's files can be: the project and the temporary directory (the write gates keep them there). */
function agentPlaces(cwd: string | undefined, file: string): string[] {
  return [projectRoot(cwd ?? path.dirname(file)), realPath(tempDir())];
}

/**
 * The program a command word runs, when it is another than its name says: a link to one
 * the gates read by name (`ln -s /usr/bin/git g; ./g commit -n`) or a binary the agent
 * could have put in the project or the temporary directory that is a copy of one (`cp
 * /usr/bin/git g`), as its real path; `"unknown"` for a binary there that is no program
 * Tama knows (a build id forged, a program compiled). Undefined when the word's name is
 * the program's (the common case), for scripts (read where they run), and for what
 * cannot be told.
 */
function programBehind(word: string, cwd: string | undefined, pathValue: string | undefined, home: string): string | "unknown" | undefined {
  const real = commandFile(word, cwd, pathValue, home);
  if (real === undefined) return undefined;
  const name = programName(word);
  const realName = path.basename(real);
  if (realName !== name && !namedAs(realName, name) && (isShadowable(realName) || isShadowable(realName.replace(/[\d.]+$/, "")))) return real;
  if (!agentPlaces(cwd, real).some((place) => isInside(place, real)) || !("binary" in readScriptFile(real))) return undefined;
  const copied = copiedProgram(real, readByName);
  if (copied === undefined) return "unknown";
  return namedAs(path.basename(copied), name) ? undefined : copied;
}

/** Shell builtins with no program of their name on PATH. */
const SHELL_BUILTINS = new Set(["cd", "export", "set", "unset", "read", "source", ".", "eval", "exec", "alias", "unalias", "declare", "typeset", "local", "readonly", "shift", "return", "exit", "trap", "wait", "jobs", "fg", "bg", "hash", "type", "command", "builtin", "let", "shopt", "umask", "ulimit", "pushd", "popd", "dirs", "getopts", "times", "enable", "mapfile", "readarray", "history", "fc", "compgen", "complete", "compopt", "caller", "logout", "disown", "suspend", "coproc", "select", "function", ":", "[[", "]]", "{", "}", "!", "time"]);

/**
 * A bare name under a PATH with a directory built at run time (`PATH=$(go env GOPATH)/bin:$PATH g`)
 * that no directory the walker can look in holds: the program is in that directory, which
 * may hold anything the agent put there (a copy of git), so it is read as an unknown binary.
 */
function unfoundUnderRuntimePath(word: string, pathValue: string | undefined, cwd: string | undefined): "unknown" | undefined {
  if (pathValue === undefined || pathValue === process.env.PATH || cwd === undefined || word.includes("/") || isDynamic(word) || SHELL_BUILTINS.has(word)) return undefined;
  const dirs = pathValue.replace(/\$\{?PATH\}?(?!\w)/g, process.env.PATH ?? "").split(":");
  if (!dirs.some(isDynamic)) return undefined;
  const found = dirs.some((dir) => !isDynamic(dir) && statOf(`${dir === "" ? cwd : path.isAbsolute(dir) ? dir : `${cwd}/${dir}`}/${word}`)?.isFile() === true);
  return found ? undefined : "unknown";
}

/** A program that runs as the name it is called by: itself, a multi-call program, git as `git-commit`. */
const namedAs = (program: string, name: string): boolean => program === name || MULTI_CALL.has(program) || (program === "git" && name.startsWith("git-"));

/**
 * An alias that runs the program of its own name with options (`rm='rm -i'`,
 * `python=python3`, `grep='grep --color=auto'`): read as that program wherever it is
 * expanded, so it changes nothing the gates read.
 */
function sameProgram(name: string, value: string): boolean {
  if (/[;&|<>(){}$`\n]/.test(value)) return false;
  const first = splitString(value)[0];
  const family = (program: string): string => programName(program).replace(/[\d.]+$/, "");
  // By name, as PATH finds it: a path (`git=./bin/git`) may be any program.
  return first !== undefined && !first.includes("/") && family(first) === family(name);
}

const shadows = (name: string, kind: string): string =>
  `this command defines a shell ${kind} named ${name}, and OMP's bash keeps it for every later call, where Tama reads \`${name}\` as the program it names; give the ${kind} another name`;

/** A command that changes the shell's directory, somewhere in a script's text. */
const CHANGES_DIRECTORY = /(?:^|[\s;&|(){}`])(?:cd|pushd|popd|chdir)(?=$|[\s;&|)}])/;

/**
 * Where `cd ARGS` goes: a directory the walker can name, or an unknown one. Options
 * (`-P`, `-L`, `-e`, `-@`, `--`) are not the directory; `-P` resolves links as it goes
 * (`cd -P l/..`), while plain `cd` takes `..` on the text as bash does. A glob goes
 * where its first match is (the line's links too); one matching nothing, a name CDPATH
 * may find elsewhere, or a variable's name under `cdable_vars` is unknown.
 */
function changeDirectory(args: readonly string[], scope: Scope, vars: ReadonlyMap<string, string>): Partial<Scope> {
  let physical = false;
  let at = 0;
  for (; at < args.length; at++) {
    const arg = args[at] as string;
    if (arg === "--") {
      at += 1;
      break;
    }
    if (!/^-[LPe@]+$/.test(arg)) break;
    physical ||= arg.includes("P");
  }
  const word = args[at];
  const home = vars.get("HOME") as string;
  if (word === undefined || word === "~") return { cwd: home, unknownCwd: undefined };
  if (word === "-" || isDynamic(word) || scope.unknownCwd !== undefined && !path.isAbsolute(word) && !word.startsWith("~")) return { unknownCwd: word };
  let expanded = word.replace(/^~(?=\/|$)/, home);
  if (expanded.startsWith("~")) return { unknownCwd: word };
  const from = scope.cwd ?? process.cwd();
  const bare = !path.isAbsolute(expanded) && !/^\.\.?(?:\/|$)/.test(expanded);
  if (bare && (vars.get("CDPATH") ?? "") !== "") return { unknownCwd: word };
  if (/[*?[]/.test(expanded)) {
    const match = globMatches(expanded, from, scope.links).slice(1).sort()[0];
    if (match === undefined) return { unknownCwd: word };
    expanded = match;
  }
  // `shopt -s cdable_vars; d=/usr; cd d`: a name that is no directory here may be a variable's value.
  if (bare && vars.has(expanded) && statOf(throughLinks(path.resolve(from, expanded), scope.links))?.isDirectory() !== true) return { unknownCwd: word };
  return { cwd: physical ? realPath(throughLinks(resolvedPath(from, expanded, scope.links), scope.links)) : path.resolve(from, expanded), unknownCwd: undefined };
}

/** ln's and cp's options that take a value (`-S SUFFIX`, `-t DIR`), so that a value is not read as a file. */
const LINK_VALUED = new Set(["-S", "--suffix", "-t", "--target-directory"]);

/**
 * The operands of `ln`/`cp`/`mv` and the directory they land in: `-t DIR` (also
 * `--target-directory[=]DIR`), else the last operand when there are several sources or it
 * is a directory (on disk, or through a link the line made), unless `-T`/`-n` says it is
 * the name itself.
 */
function placedBy(argv: readonly string[], scope: Scope): { sources: string[]; into?: string; as?: string; flags: string; longs: string[] } | undefined {
  const cwd = scope.unknownCwd === undefined ? scope.cwd ?? process.cwd() : undefined;
  if (cwd === undefined) return undefined;
  const words: string[] = [];
  let into: string | undefined;
  let asName = false;
  let options = true;
  let flags = "";
  const longs: string[] = [];
  // ln's -n is --no-dereference (a link to a directory is the name itself); mv's and cp's is --no-clobber.
  const dereferenceFlag = argv[0] !== undefined && programName(argv[0]) === "ln" ? /[Tn]/ : /T/;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (options && arg === "--") options = false;
    else if (options && arg.startsWith("--target-directory=")) into = arg.slice("--target-directory=".length);
    else if (options && LINK_VALUED.has(arg)) {
      if (arg === "-t" || arg === "--target-directory") into = argv[i + 1];
      i += 1;
    } else if (options && /^-[A-Za-z]+$/.test(arg)) {
      flags += arg.slice(1);
      // `-st DIR` clusters -t with its value next.
      if (/t$/.test(arg) && !arg.startsWith("--")) {
        into = argv[i + 1];
        i += 1;
      }
      asName ||= dereferenceFlag.test(arg);
    } else if (options && arg.startsWith("--")) {
      longs.push(arg.replace(/=.*$/, ""));
      asName ||= arg === "--no-target-directory" || (arg === "--no-dereference" && dereferenceFlag.test("n"));
    }
    else words.push(arg);
  }
  if (into !== undefined) return { sources: words, into: path.resolve(cwd, into), flags, longs };
  const last = words.at(-1);
  if (words.length < 2 || last === undefined) return words.length === 1 ? { sources: words, into: cwd, flags, longs } : undefined;
  const dest = path.resolve(cwd, last);
  const isDir = !asName && statOf(throughLinks(dest, scope.links))?.isDirectory() === true;
  return words.length > 2 || isDir ? { sources: words.slice(0, -1), into: dest, flags, longs } : { sources: words.slice(0, 1), as: dest, flags, longs };
}

/** The links `ln -s TARGET… LINK` (or `cp -s`) adds to the ones the scope knows; `~` and `$HOME` in a target expand as the shell expands them. */
function linksMade(argv: readonly string[], scope: Scope): Map<string, string> {
  const links = new Map(scope.links ?? []);
  if (!argv.some((a) => /^-[A-Za-z]*s/.test(a) || a === "--symbolic" || a === "--symbolic-link")) return links;
  const placed = placedBy(argv, scope);
  if (placed === undefined) return links;
  const home = scope.env.get("HOME") ?? scope.home ?? os.homedir();
  // `ln -r` writes the target relative to the link, from a target named relative to the cwd.
  const fromCwd = programName(argv[0] ?? "") === "ln" && (placed.flags.includes("r") || placed.longs.includes("--relative"));
  for (const source of placed.sources) {
    const link = placed.as ?? path.join(placed.into as string, path.basename(source));
    const named = source.replace(/^~(?=\/|$)/, home);
    // A relative target is read from the link's own directory, as the kernel reads it.
    links.set(link, path.resolve(fromCwd ? scope.cwd ?? process.cwd() : path.dirname(link), named));
  }
  return links;
}

/**
 * `cp -a l l2` (also -d, -P, -r, --no-dereference): a link copied is a link, to the same
 * place. A source that is a link on disk or one the line made is carried to its copy.
 */
function linksCopied(argv: readonly string[], scope: Scope): Map<string, string> | undefined {
  const placed = placedBy(argv, scope);
  if (placed === undefined) return undefined;
  // rsync copies a link as one with -l (in -a); cp with -d or -P (in -a), and -r.
  const linkFlags = programName(argv[0] ?? "") === "rsync" ? /[al]/ : /[adPrR]/;
  const keepsLinks = linkFlags.test(placed.flags) || placed.longs.some((long) => long === "--archive" || long === "--no-dereference" || long === "--recursive" || long === "--links");
  if (!keepsLinks || /[LH]/.test(placed.flags) || placed.longs.includes("--dereference")) return undefined;
  return carriedLinks(placed, scope, (from) => scope.links?.get(from) ?? (isLink(from) ? realPath(from) : undefined), false);
}

/** `mv a b` of a link the line made: the link is at its new name (`ln -s .git a && mv a b && … b/config`). */
function linksMoved(argv: readonly string[], scope: Scope): Map<string, string> {
  const placed = placedBy(argv, scope);
  return placed === undefined ? new Map(scope.links ?? []) : carriedLinks(placed, scope, (from) => scope.links?.get(from), true);
}

/** The scope's links with each source that is a link (`targetOf`) put where `placed` puts it; `moved`: no longer at the source. */
function carriedLinks(placed: { sources: string[]; into?: string; as?: string }, scope: Scope, targetOf: (from: string) => string | undefined, moved: boolean): Map<string, string> {
  const links = new Map(scope.links ?? []);
  const cwd = scope.cwd ?? process.cwd();
  for (const source of placed.sources) {
    const from = path.resolve(cwd, source);
    const target = targetOf(from);
    if (target === undefined) continue;
    if (moved) links.delete(from);
    links.set(placed.as ?? path.join(placed.into as string, path.basename(from)), target);
  }
  return links;
}

/**
 * A name a program listing files prints, as a path: under the root it lists (`grep -rl x
 * src` → src/…, `find d` → d/…), or relative to it where it prints bare names (`ls d`,
 * `git ls-files`, `git diff --name-only`). None of them follows a link out by default.
 * Undefined for any other program, for one told to follow links, and for roots built at run time.
 */
function listedName(argv: readonly string[], env?: ReadonlyMap<string, string>, cwd?: string): string | undefined {
  const program = argv[0] === undefined ? undefined : programName(argv[0]);
  const args = argv.slice(1);
  /** A name under the roots (their common folder where there are several), with the listing's marks. */
  const under = (roots: readonly string[], marks: readonly string[] = []): string | undefined => {
    if (roots.some((root) => isDynamic(root) || /[*?[]/.test(root))) return undefined;
    const root = commonFolder(roots.length === 0 ? ["."] : roots);
    return root === "." ? listedToken(marks) : path.join(root, listedToken(marks));
  };
  if (program === "ls") return lsListed(args, env);
  // git's own options come before its command (`git -C sub ls-files`, `git -c k=v grep -l`).
  const at = program === "git" ? gitCommandAt(args) : 0;
  const dirOption = args.slice(0, at).lastIndexOf("-C");
  const gitDir = dirOption === -1 ? undefined : args[dirOption + 1];
  const gitArgs = args.slice(at);
  const gitCommand = program === "git" ? gitArgs[0] : undefined;
  const from = (token: string | undefined): string | undefined => (token === undefined || gitDir === undefined ? token : isDynamic(gitDir) ? undefined : path.join(gitDir, token));
  // Where git runs, and the work tree's top from there: `:/`, `:(top)` and `git status` name files from the top (`../.env`).
  const runsIn = cwd === undefined || gitDir === undefined ? cwd : isDynamic(gitDir) ? undefined : path.resolve(cwd, gitDir);
  const top = (): string | undefined => (runsIn === undefined ? undefined : workTreeTop(runsIn));
  // `git status` names changed and untracked files anywhere in the work tree.
  if (gitCommand === "status") return runsIn === undefined ? undefined : from(path.join(workTreeTop(runsIn), listedToken()));
  if (gitCommand === "ls-files" || (gitCommand === "diff" && gitArgs.includes("--name-only")) || (gitCommand === "grep" && gitArgs.some((a) => /^-[a-zA-Z]*l/.test(a) || a === "--name-only" || a === "--files-with-matches"))) {
    const gitOperands = gitArgs.filter((word) => !word.startsWith("-"));
    // git prints paths from the folder it runs in; an option Tama does not know may take a value or change what is listed.
    const dashes = gitArgs.indexOf("--");
    const options = (dashes === -1 ? gitArgs : gitArgs.slice(0, dashes)).filter((word) => word.startsWith("-"));
    if (options.some((option) => !GIT_LISTING_FLAGS.has(option) && !/^-[lzinwvEFPcdosu]+$/.test(option))) return from(listedToken());
    const specs = dashes !== -1 ? gitArgs.slice(dashes + 1) : gitOperands.slice(gitCommand === "grep" && !gitArgs.includes("-e") ? 2 : gitCommand === "ls-files" ? 1 : gitOperands.length);
    // ls-files and grep list only what git tracks, unless told otherwise; diff compares two folders outside a work tree, and git's own options may change what it tracks.
    const others = options.some((option) => option === "--others" || option === "--untracked" || option === "--no-index" || (/^-[a-zA-Z]+$/.test(option) && option.includes("o")));
    // What git tracks is what its index says: another index, git dir or work tree (GIT_INDEX_FILE, GIT_DIR, …) says otherwise.
    const tracked = gitCommand !== "diff" && at === 0 && !others && ![...(env?.keys() ?? [])].some((name) => name.startsWith("GIT_"));
    return from(listedIn(specs, tracked ? [LISTED_TRACKED] : [], top));
  }
  if (program === "fd" || program === "fdfind") {
    // fd PATTERN [PATH…]: names under the paths; `-e EXT` only names ending .EXT. From another base folder the names are not the caller's.
    const words: string[] = [];
    const extensions: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const word = args[i] as string;
      if (word === "--base-directory" || word.startsWith("--base-directory=")) return undefined;
      if (word === "-e" || word === "--extension") extensions.push(args[++i] ?? "");
      else if (FD_VALUED.has(word)) i++;
      else if (word === "--search-path") words.push("", args[++i] ?? "");
      else if (!word.startsWith("-")) words.push(word);
    }
    const marks = [...(extensions.length > 0 && extensions.every((ext) => /^[\w.-]+$/.test(ext)) ? extensions.map((ext) => `*.${ext.replace(/^\./, "")}`) : []), ...(showsHidden("fd", args) ? [] : [LISTED_VISIBLE])];
    return under(words.slice(1).filter(Boolean), marks);
  }
  if (program === "find") {
    if (args.some((a) => a === "-L" || a === "-follow")) return undefined;
    const firstTest = args.findIndex((a) => a.startsWith("-") || a === "(" || a === "!");
    const roots = firstTest === -1 ? args : args.slice(0, firstTest);
    // find prints its root too (`find /p | while read f; do rm -rf "$f"`): only a test that leaves the root out makes every name one below it.
    const root = roots[0] ?? ".";
    const tests = firstTest === -1 ? [] : args.slice(firstTest);
    const valueOf = (option: string): string | undefined => tests[tests.indexOf(option) + 1];
    const mindepth = Number(valueOf("-mindepth") ?? 0);
    const name = valueOf("-name") ?? valueOf("-iname");
    const leavesRoot = mindepth >= 1 || valueOf("-type") === "f" || valueOf("-type") === "l" || (name !== undefined && !isDynamic(name) && !nameGlob(name, { leadingDot: true, caseless: tests.includes("-iname") }).test(path.basename(root) || root));
    // One `-name GLOB` and no other way of choosing (`-o`, `!`, `-path`, `-regex`): the names it prints match the glob.
    const only = name !== undefined && !isDynamic(name) && tests.includes("-name") && !tests.some((t) => ["-o", "-or", "!", "-not", ",", "-path", "-wholename", "-regex", "-iname"].includes(t)) && tests.filter((t) => t === "-name").length === 1;
    return leavesRoot ? under(roots, only ? [name] : []) : undefined;
  }
  if ((program === "grep" || program === "egrep" || program === "rg") && args.some((a) => /^-[a-zA-Z]*l/.test(a) || a === "--files-with-matches" || a === "--files")) {
    if (args.some((a) => /^-[a-zA-Z]*R/.test(a) || a === "--dereference-recursive" || a === "--follow" || (program === "rg" && a === "-L"))) return undefined;
    // The operands past the options' values: the pattern (unless -e or -f gives it, or rg --files), then the roots.
    const words: string[] = [];
    const globs: string[] = [];
    let patternGiven = program === "rg" && args.includes("--files");
    for (let i = 0; i < args.length; i++) {
      const word = args[i] as string;
      if (word === "-e" || word === "--regexp" || word === "-f" || word === "--file") (patternGiven = true), i++;
      else if (program === "rg" && (word === "-g" || word === "--glob")) globs.push(args[++i] ?? "");
      // Globs that take case in any form, and types the command redefines, may take in any name.
      else if (program === "rg" && (word === "--iglob" || word === "--type-add")) globs.push("*"), i++;
      else if (program === "rg" && (word === "-t" || word === "--type")) globs.push(...(RG_TYPES[args[++i] ?? ""] ?? ["*"]));
      else if (word.startsWith("--include=")) globs.push(word.slice("--include=".length));
      else if (SEARCH_VALUED.has(word)) i++;
      else if (word.startsWith("-") && !/^-[a-zA-Z.]+$/.test(word) && !SEARCH_FLAGS.has(word) && !word.includes("=")) return undefined;
      else if (!word.startsWith("-")) words.push(word);
    }
    if (args.includes("--glob-case-insensitive")) globs.push("*");
    // Only names the globs take in (`rg -l x -g '*.ts'`, `grep -rl x --include='*.py'`); one that leaves names out narrows nothing.
    const taking = globs.filter((glob) => !glob.startsWith("!") && !glob.includes("/") && /^[\w.*?[\]-]+$/.test(glob));
    const marks = [...(taking.length > 0 && taking.length === globs.length ? taking : []), ...(program === "rg" && !showsHidden("rg", args) && !env?.get("RIPGREP_CONFIG_PATH") ? [LISTED_VISIBLE] : [])];
    return under(patternGiven ? words : words.slice(1), marks);
  }
  return undefined;
}

/** The folder every one of `roots` lies in (`src`, `test` → `.`; `src/a`, `src/b` → `src`). */
function commonFolder(roots: readonly string[]): string {
  const parts = roots.map((root) => path.normalize(root).split("/").filter((part, i) => part !== "" || i === 0));
  const first = parts[0] ?? ["."];
  let shared = 0;
  while (shared < first.length && parts.every((p) => p[shared] === first[shared])) shared++;
  if (roots.length === 1) return path.normalize(roots[0] as string);
  return shared === 0 ? (first[0] === "" ? "/" : ".") : first.slice(0, shared).join("/") || "/";
}

/** ls's options that take the next word as their value. */
const LS_VALUED = new Set(["-I", "--ignore", "--hide", "-w", "--width", "-T", "--tabsize", "--format", "--sort", "--time", "--block-size", "--quoting-style", "--indicator-style", "--time-style"]);

/** The name of the walker's own variable saying `shopt -s dotglob` ran on the line (globs then match hidden names). */
export const DOTGLOB = " dotglob";

/**
 * A name `ls ARGS` prints: a bare name (ls prints a folder's names without it), or an operand
 * as written (`ls -d /etc/*` prints `/etc/passwd`): any name under the cwd and under every
 * operand's folder. Hidden names only with `-a`/`-A` (any cluster or abbreviation), a hidden
 * operand, or a glob where dot names match (`shopt -s dotglob`, GLOBIGNORE).
 */
function lsListed(args: readonly string[], env?: ReadonlyMap<string, string>): string | undefined {
  const operands: string[] = [];
  let all = false;
  let almost = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (LS_VALUED.has(arg)) i++;
    else if (arg.startsWith("--")) {
      const name = arg.split("=")[0] as string;
      // GNU ls takes any unambiguous start of a long option (`--alm`); `--a` and `--al` may be either.
      if (name.length > 2 && "--all".startsWith(name)) all = true;
      if (name.length > 2 && "--almost-all".startsWith(name)) almost = true;
    } else if (arg.startsWith("-") && arg !== "-") {
      if (/[af]/.test(arg.slice(1))) all = true;
      if (arg.slice(1).includes("A")) almost = true;
    } else operands.push(arg);
  }
  if (operands.some(isDynamic)) return undefined;
  const globs = operands.some((word) => /[*?[]/.test(word));
  const dotNames = globs && (env?.has("GLOBIGNORE") === true || env?.has(DOTGLOB) === true);
  const hidden = all || almost || dotNames || operands.some((word) => /(?:^|\/)\.[^/]/.test(word));
  const marks = [...(all ? [LISTED_PARENT] : []), ...(hidden ? [] : [LISTED_VISIBLE])];
  // Where the operands' folders lie: the cwd, above it (`ls ../x`), or anywhere (`ls /etc`, `ls ~`).
  const folders = operands.map((word) => path.normalize(path.dirname(word.replace(/[*?[].*$/s, "x"))));
  if (folders.some((folder) => path.isAbsolute(folder) || folder.startsWith("~"))) return path.join("/", listedToken(marks));
  const up = Math.max(0, ...folders.map((folder) => folder.split("/").filter((part) => part === "..").length));
  return up === 0 ? listedToken(marks) : path.join(Array(up).fill("..").join("/"), listedToken(marks));
}

/** Some of rg's file types, by the globs it gives them (`rg --type-list`); any other type may name any file. */
const RG_TYPES: Readonly<Record<string, readonly string[]>> = {
  py: ["*.py", "*.pyi"],
  ts: ["*.ts", "*.tsx", "*.cts", "*.mts"],
  js: ["*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"],
  rust: ["*.rs"],
  go: ["*.go"],
  c: ["*.c", "*.h", "*.H", "*.cats"],
  java: ["*.java", "*.jsp", "*.jspx", "*.properties"],
  rb: ["*.rb", "*.gemspec", "Gemfile", "config.ru", ".irbrc", "Rakefile"],
  css: ["*.css", "*.scss"],
  html: ["*.htm", "*.html", "*.ejs"],
};

/** git ls-files', grep's and diff's long flags that take no value and keep the listing to paths under the current folder. */
const GIT_LISTING_FLAGS = new Set(["--cached", "--modified", "--others", "--deleted", "--stage", "--full-name", "--recurse-submodules", "--exclude-standard", "--name-only", "--files-with-matches", "--ignore-case", "--word-regexp", "--invert-match", "--extended-regexp", "--fixed-strings", "--perl-regexp", "--untracked", "--no-index", "--cached", "--null", "--deduplicate", "--error-unmatch", "--staged", "--no-renames", "--diff-filter", "--relative"]);
/** grep's and rg's long flags that take no value. */
const SEARCH_FLAGS = new Set(["--files", "--files-with-matches", "--hidden", "--no-ignore", "--no-ignore-vcs", "--ignore-case", "--smart-case", "--case-sensitive", "--word-regexp", "--fixed-strings", "--recursive", "--null", "--text", "--binary", "--no-messages", "--glob-case-insensitive", "--unrestricted", "--multiline", "--pcre2", "--follow", "--line-number", "--count", "--invert-match", "--extended-regexp", "--perl-regexp", "--no-heading", "--with-filename", "--sort-files", "--one-file-system"]);

/** grep's and rg's options that take a separate value (besides the pattern's and the globs', read apart). */
const SEARCH_VALUED = new Set(["-m", "--max-count", "-A", "-B", "-C", "--after-context", "--before-context", "--context", "-d", "-D", "--directories", "--devices", "-t", "--type", "-T", "--type-not", "-M", "--max-columns", "-j", "--threads", "--max-depth", "--maxdepth", "--pre", "--pre-glob", "-E", "--encoding", "--sort", "--sortr", "--type-add", "--colors", "--color", "--context-separator", "-r", "--replace", "--path-separator", "--max-filesize", "--engine", "--ignore-file", "--label", "--exclude-dir", "--exclude", "--include"]);

/**
 * Whether rg or fd is told to show hidden names: rg by `--hidden`, `-.` (alone or in a
 * cluster) or two `-u`s in all (`-uu`, `-u -u`, `--unrestricted` twice); fd by `-H`, `-u`
 * or their long forms.
 */
function showsHidden(program: "rg" | "fd", args: readonly string[]): boolean {
  const clusters = args.filter((arg) => /^-[a-zA-Z.]+$/.test(arg)).map((arg) => arg.slice(1));
  const letters = clusters.join("");
  const unrestricted = args.filter((arg) => arg === "--unrestricted").length;
  if (program === "rg") return args.includes("--hidden") || letters.includes(".") || [...letters].filter((c) => c === "u").length + unrestricted >= 2;
  return args.includes("--hidden") || unrestricted > 0 || /[Hu]/.test(letters);
}

/** fd's options that take a value (besides `-e` and `--search-path`, read apart). */
const FD_VALUED = new Set(["-t", "--type", "-d", "--max-depth", "--min-depth", "--exact-depth", "-E", "--exclude", "-S", "--size", "--changed-within", "--changed-before", "-o", "--owner", "-j", "--threads", "-c", "--color", "--base-directory", "--path-separator", "--ignore-file", "--max-results", "--format"]);

/**
 * A name git lists under its pathspecs: under the one folder or file named, or, where every
 * pathspec is a name glob (`'*.ts'`), a name those globs match (`listed-name:*.ts`), anywhere.
 */
function listedIn(given: readonly string[], marks: readonly string[] = [], top: () => string | undefined = () => undefined): string | undefined {
  // `:!x`, `:^x`, `:(exclude)x` leave names out: read without them, as any name the rest lists.
  const specs = given.filter((spec) => !/^:(?:!|\^|\(exclude\))/.test(spec));
  if (specs.length === 0) return listedToken(marks);
  // A spec built at run time: anywhere.
  if (specs.some((spec) => isDynamic(spec))) return undefined;
  // `:/`, `:(top)`: any name below the work tree's top (`top`, from where git runs), where it is known.
  if (specs.some((spec) => /^:(?:\/|\([^)]*top)/.test(spec))) {
    const up = top();
    return up === undefined ? undefined : path.join(up, listedToken(marks));
  }
  // Other magic (`:(glob)**`, `:(icase)x`): any name below the current folder.
  if (specs.some((spec) => spec.startsWith(":"))) return listedToken(marks);
  // git matches a pathspec glob against the whole path, a `*` across folders: only `*.ext` narrows to names alone.
  if (specs.every((spec) => /^\*[^*?[\]\/\\]+$/.test(spec))) return listedToken([...specs, ...marks]);
  return specs.some((spec) => /[*?[]/.test(spec)) ? listedToken(marks) : path.join(commonFolder(specs), listedToken(marks));
}

/**
 * What a reader handed a command's output by name may open (`… | cut -c4- | xargs cat`):
 * any name under the place a listing lists, unmarked (a part of a name, or one rewritten,
 * is no longer what its marks say), and any name in the work tree for git's other output
 * (`git clean -n`, `git add -n .`, `git check-ignore *` print names too).
 */
function printedNames(argv: readonly string[], env: ReadonlyMap<string, string> | undefined, cwd: string | undefined): string | undefined {
  const listed = listedName(argv, env, cwd);
  if (listed !== undefined) return unmarked(listed);
  if (argv[0] === undefined || programName(argv[0]) !== "git" || cwd === undefined) return undefined;
  return path.join(workTreeTop(cwd), listedToken());
}

/** The work tree's top as git prints paths from `dir` (`..`, or `.` at the top). */
const workTreeTop = (dir: string): string => path.relative(dir, projectRoot(dir)) || ".";

/** A name xargs hands on, standing in to see whether the command writes what it is handed. */
const HANDED = "\u0000handed";

/** The names xargs reads from input no reader saw, as a word built at run time: `$(tool …)`, `$(cat list)` where that is plain words. */
function runTimeName(source: readonly string[] | undefined): string {
  const words = source ?? [];
  return words.length > 0 && words.every((word) => /^[\w./=:@%+,-]+$/.test(word)) ? `$(${words.join(" ")})` : "$(cat)";
}

/** The text xargs reads from a stdin the walker can read (`echo a b | xargs …`, `<<< "a b"`); undefined when it cannot. */
function xargsInput(command: ShellCommand, previous: PipedFrom | undefined): string | undefined {
  if (command.stdin.length > 0) return command.stdin.join("\n");
  if (!command.piped || previous === undefined) return undefined;
  const program = previous.argv[0] === undefined ? undefined : spelledProgram(previous.argv[0]);
  if (program !== "echo" && program !== "printf") return previous.printed();
  const words = previous.argv.slice(1).filter((w, i) => !(i === 0 && /^-[neE]+$/.test(w)));
  return words.join(" ").replace(/\\n/g, "\n");
}

/**
 * The command xargs runs with the items of its input: appended, split on blanks; one a
 * line with `-I R` (`--replace`, `-i`), put where R stands in each word; split on the
 * delimiter only with `-0`/`-d` (`xargs -d '\n' bash -c` runs each line). `options`:
 * the words from `xargs` on; `argv`: the command it runs.
 */
function xargsRun(options: readonly string[], argv: readonly string[], input: string): string[] {
  const { replace, delimiter } = xargsModes(options, argv.length);
  const items = delimiter !== undefined
    ? input.split(delimiter).filter((item, i, all) => item !== "" || i < all.length - 1)
    : replace !== undefined
      ? input.split("\n").map((line) => line.trim()).filter(Boolean)
      : input.split(/\s+/).filter(Boolean);
  if (replace === undefined || replace === "") return [...argv, ...items];
  // Each line runs the command once; put in together, one a line, a shell handed them (`bash -c {}`) reads every one.
  const item = items.join("\n");
  return placedIn(argv, replace, item);
}

/** The command xargs runs with one item, unsplit, where its items go. */
function xargsPlaced(options: readonly string[], argv: readonly string[], item: string): string[] {
  const { replace } = xargsModes(options, argv.length);
  return replace === undefined || replace === "" ? [...argv, item] : placedIn(argv, replace, item);
}

/** `item` where `replace` stands in the command's arguments (GNU xargs leaves the program's own name as it is). */
const placedIn = (argv: readonly string[], replace: string, item: string): string[] => argv.map((word, i) => (i === 0 ? word : word.split(replace).join(item)));

/** How xargs places its items (`-I R`: where R stands) and splits its input (`-0`, `-d`), from the words before the command (`commandLength` words). */
function xargsModes(options: readonly string[], commandLength: number): { replace?: string; delimiter?: string } {
  let replace: string | undefined;
  let delimiter: string | undefined;
  const line = (value: string): string => value.replace(/^\\n$/, "\n");
  for (let i = 1; i < options.length - commandLength; i++) {
    const word = options[i] as string;
    if (word === "--") break;
    if (word === "--replace") replace = "{}";
    else if (word.startsWith("--replace=")) replace = word.slice("--replace=".length);
    else if (word === "--null") delimiter = "\0";
    else if (word === "--delimiter") delimiter = line(options[++i] ?? "");
    else if (word.startsWith("--delimiter=")) delimiter = line(word.slice("--delimiter=".length));
    else if (/^-[^-]/.test(word)) {
      // Short options run together as getopt reads them (`-0I{}`, `-rI {}`, `-iX`): a letter that takes a value ends the cluster.
      for (let j = 1; j < word.length; j++) {
        const letter = word[j] as string;
        const rest = word.slice(j + 1);
        if (letter === "0") delimiter = "\0";
        else if (letter === "I") replace = rest !== "" ? rest : options[++i] ?? "{}";
        else if (letter === "i") replace = rest !== "" ? rest : "{}";
        else if (letter === "d") delimiter = line(rest !== "" ? rest : options[++i] ?? "");
        else if (XARGS_SHORT_VALUED.includes(letter)) {
          if (rest === "") i++;
        } else if (XARGS_SHORT_OPTIONAL.includes(letter)) {
          // -e[EOF], -l[N]: a value only when glued.
        } else continue;
        break;
      }
    }
  }
  return { ...(replace !== undefined ? { replace } : {}), ...(delimiter !== undefined ? { delimiter } : {}) };
}

/** xargs' short options that take a value, glued or as the next word; and those whose value is only glued. */
const XARGS_SHORT_VALUED = "aEnLsP";
const XARGS_SHORT_OPTIONAL = "el";

/** A command done on the line, for the one its output is piped into: its words, and what it printed when the walker can tell. */
interface PipedFrom {
  argv: readonly string[];
  /** Its environment, where the walker can tell it (a program's own settings: `RIPGREP_CONFIG_PATH`). */
  env?: ReadonlyMap<string, string>;
  printed: () => string | undefined;
  /** A download is upstream (`curl … | tee f`): block-pipe-to-shell names what a shell fed it runs. */
  download?: boolean;
  /** It is a shell setup tool the person installed (`kubectl completion bash`): what it prints is its own. */
  setup?: boolean;
  /** A name it prints, where it lists files (listedName) or passes on lines a listing printed. */
  listed?: () => string | undefined;
  /**
   * A name or part of one a listing upstream printed, changed by the commands since
   * (`git status --porcelain | cut -c4-`): any name under the place listed, unmarked.
   */
  parts?: () => string | undefined;
}

/** It reads other input than the pipe: a here-string or here-document, a `<` file, a copied descriptor (`<&3`). */
const takesOtherInput = (command: ShellCommand): boolean => command.stdin.length > 0 || command.redirects.some((r) => r.op.startsWith("<"));

/**
 * A listing that skips hidden names (`ls`, rg, fd) prints a visible name whole only where no
 * name holds a line break, blank, quote or backslash, at which `while read` or xargs splits
 * it (`x\n.claude` is read as `.claude`): ls's folders are looked at (the cwd and its
 * operands'), and after the line wrote files any listing may print such a name.
 */
function seenWhole(listed: string | undefined, argv: readonly string[], cwd: string | undefined, lineWrote: boolean): string | undefined {
  if (listed === undefined || !listed.includes(`:${LISTED_VISIBLE}`)) return listed;
  const splits = (dir: string): boolean => statOf(dir)?.isDirectory() === true && namesIn(dir).some((name) => /[\s'"\\]/.test(name));
  const folders = programName(argv[0] ?? "") === "ls" ? [".", ...argv.slice(1).filter((word) => !word.startsWith("-")).map((word) => (/[*?[]/.test(word) ? path.dirname(word.replace(/[*?[].*$/s, "x")) : word))] : [];
  const unsafe = lineWrote || cwd === undefined || folders.some((folder) => splits(path.resolve(cwd, folder)));
  return unsafe ? listed.replace(`:${LISTED_VISIBLE}`, "") : listed;
}

/**
 * A filter that prints some of the lines it reads, each whole: `grep` with a pattern (not
 * `-o`, counts, numbers or names of files), `head`/`tail -n`, `sort`, `uniq`, `tac`, `cat`.
 * Reading its stdin only: a file operand adds lines of its own.
 */
function passesLines(argv: readonly string[]): boolean {
  const program = argv[0] === undefined ? undefined : programName(argv[0]);
  const args = argv.slice(1);
  if (program === "grep" || program === "egrep" || program === "fgrep") {
    let operands = 0;
    let patterns = 0;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as string;
      if (arg === "-e" || arg === "--regexp") {
        patterns++;
        i++;
      } else if (arg.startsWith("--regexp=")) patterns++;
      else if (/^--(?:invert-match|ignore-case|extended-regexp|fixed-strings|perl-regexp|basic-regexp|line-regexp|word-regexp|no-ignore-case)$/.test(arg)) continue;
      else if (/^-[vixwEFGPs]+$/.test(arg)) continue;
      else if (/^-[vixwEFGPs]*e/.test(arg)) patterns++;
      else if (arg.startsWith("-")) return false;
      else operands++;
    }
    return operands <= (patterns > 0 ? 0 : 1);
  }
  if (program === "head" || program === "tail") return args.every((arg, i) => /^-(?:n)?\+?\d*$/.test(arg) || (/^\+?\d+$/.test(arg) && args[i - 1] === "-n") || /^--lines=\+?\d+$/.test(arg));
  if (program === "sort") return args.every((arg) => /^-[ufrVdb]+$/.test(arg) || /^--(?:unique|reverse|version-sort)$/.test(arg));
  if (program === "uniq" || program === "tac" || program === "cat") return args.length === 0;
  return false;
}

/** A function whose body is a compound command other than braces (`f() if …; fi`): its head. */
const UNBRACED = /(?:^|[\s;&|(){}])(?:function\s+[A-Za-z_][\w.:-]*\s*(?:\(\s*\))?|[A-Za-z_][\w.:-]*\s*\(\s*\))\s*(?:if|for|while|until|case|select|\[\[|\(\()(?=[\s(])/;

/** A function definition's head: `f() {`, `function f {`, `function f() (`. */
const DEFINITION = /(?:^|[\s;&|(){}])(?:function\s+([A-Za-z_][\w.:-]*)\s*(?:\(\s*\))?|([A-Za-z_][\w.:-]*)\s*\(\s*\))\s*([{(])/g;

/** Each function definition in the script: its name, where it starts (the name) and its body's brackets. */
function* definitionsIn(script: string): Generator<{ name: string; start: number; open: number; close: number }> {
  for (const match of script.matchAll(DEFINITION)) {
    const open = (match.index ?? 0) + match[0].length - 1;
    const start = (match.index ?? 0) + (/^[\s;&|(){}]/.test(match[0]) ? 1 : 0);
    yield { name: (match[1] ?? match[2]) as string, start, open, close: matching(script, open, match[3] === "{" ? "}" : ")") };
  }
}

/** A body given to a name that had one: both are kept (each is read where the name is used), as `before` and `body` one per line. */
export function bothBodies(before: string | undefined, body: string): string {
  return before === undefined || before === body || before.split("\n").includes(body) ? (before ?? body) : `${before}\n${body}`;
}

/** Functions the script defines (`f() { …; }`, `function f { …; }`), by name, with their bodies. */
export function functionsOf(script: string): Map<string, string> {
  const functions = new Map<string, string>();
  // A name defined twice keeps both bodies: which one runs depends on what ran.
  for (const { name, open, close } of definitionsIn(script)) functions.set(name, bothBodies(functions.get(name), script.slice(open + 1, close)));
  return functions;
}

/**
 * The script with each function definition in place of `:`: a body runs where the
 * function is called, and is read there with the call's arguments (`cleanup dist`),
 * not where it is defined, where `rm -rf "$1"` has no operand yet.
 */
export function withoutDefinitions(script: string): string {
  let out = "";
  let from = 0;
  for (const { start, close } of definitionsIn(script)) {
    // A definition inside one already taken out.
    if (start < from) continue;
    out += `${script.slice(from, start)}:`;
    from = close + 1;
  }
  return from === 0 ? script : out + script.slice(from);
}

/** The index of the bracket closing the one at `open`, skipping quoted text. */
function matching(src: string, open: number, closer: string): number {
  const opener = src[open] as string;
  let depth = 0;
  for (let j = open; j < src.length; j++) {
    const ch = src[j];
    if (ch === "\\") j++;
    else if (ch === "'") j = Math.max(j, src.indexOf("'", j + 1) === -1 ? src.length : src.indexOf("'", j + 1));
    else if (ch === '"') {
      // Inside double quotes a `'` or a bracket is text (`echo "it's {"`).
      let k = j + 1;
      while (k < src.length && src[k] !== '"') k += src[k] === "\\" ? 2 : 1;
      j = k;
    } else if (ch === "#" && j > open && /[\s;&|(){}]/.test(src[j - 1] as string)) {
      // A comment runs to the end of its line (`# don't`).
      const end = src.indexOf("\n", j);
      j = end === -1 ? src.length : end;
    } else if (ch === opener) depth++;
    else if (ch === closer && --depth === 0) return j;
  }
  return src.length;
}

/** `"$@"`, `$@`, `$*`: all the positional parameters. */
const ALL_ARGS = /"\$@"|"\$\{@\}"|"\$\*"|\$@|\$\*/g;

/** A script's `"$@"` (`$@`, `$*`) as the words it was given, each its own word (`exec git "$@" --no-verify` run as `f commit -m x`). */
function allArgs(text: string, args: readonly string[]): string {
  return args.length === 0 ? positionalBound(text, undefined) : positionalBound(text, args, false);
}

/** A function's body with its positional parameters (`"$@"`, `$1`, …) given the call's arguments. */
function callBody(body: string, args: readonly string[]): string {
  return positionalBound(body, args);
}

/**
 * Tools that print shell setup for the person's own shell (`eval "$(pyenv init -)"`,
 * `source <(kubectl completion bash)`, `eval "$(ssh-agent -s)"`): their output is theirs,
 * not text the agent wrote, and running it is what they are for. `direnv hook` only defines
 * the prompt hook (no prompt runs in a tool call). Not direnv's or mise's `export`/`env`, nor
 * `mise activate`, which loads the project's environment at once: they run and print what
 * a project file the agent can write says (`.envrc`, `mise.toml`).
 */
const SHELL_SETUP: Readonly<Record<string, RegExp>> = {
  pyenv: /^(?:init|virtualenv-init|sh-\w+)$/, direnv: /^hook$/, rbenv: /^init$/, nodenv: /^init$/, goenv: /^init$/, jenv: /^init$/, plenv: /^init$/, phpenv: /^init$/, swiftenv: /^init$/,
  "ssh-agent": /^-[sck]$/, brew: /^shellenv$/, starship: /^init$/, zoxide: /^init$/, fnm: /^env$/,
  conda: /^shell\.\w+$/, micromamba: /^shell$/, opam: /^env$/, luarocks: /^path$/, dircolors: /./, keychain: /^--eval$/, thefuck: /^--alias$/, atuin: /^init$/, mcfly: /^init$/,
  kubectl: /^completion$/, helm: /^completion$/, gh: /^completion$/, npm: /^completion$/, pnpm: /^completion$/, rustup: /^completions?$/, poetry: /^completions?$/, pip: /^completion$/,
  docker: /^completion$/, deno: /^completions$/, bun: /^completions$/, uv: /^generate-shell-completion$/, just: /^--completions$/, "gpg-agent": /^--daemon$/,
};

/** A command line printing a setup tool's shell code (see SHELL_SETUP). */
function isShellSetup(argv: readonly string[]): boolean {
  const program = argv[0] === undefined ? undefined : programName(argv[0]);
  const words = program === undefined || !Object.hasOwn(SHELL_SETUP, program) ? undefined : SHELL_SETUP[program];
  return words !== undefined && argv.slice(1).some((word) => words.test(word));
}

/** The text of a `$( )`/backtick word or a `<( )` file, when the word is one whole substitution. */
const WHOLE_SUBSTITUTION = /^(?:\$\((.*)\)|`(.*)`|<\((.*)\))$/s;

/**
 * The substitution whose output a command runs as commands when no reader here can tell
 * what it prints: a command named by one (`$(./gen)`, and so `eval "$(./gen)"` and `bash
 * -c "$(./gen)"`, whose text is read as a script of that one command), or a `<( )` a
 * shell, `source` or `.` runs as its script. Undefined for text the walker can tell, for
 * a shell setup tool's (`setupTool`: the person's own, not a function or a file of the
 * agent's named like one), and for every other command.
 */
function unreadOutputRun(argv: readonly string[], program: string | undefined, printer: Printer, setupTool: (argv: readonly string[]) => boolean): string | undefined {
  const runs = (word: string | undefined): string | undefined => {
    const inner = word === undefined ? null : WHOLE_SUBSTITUTION.exec(word);
    if (inner === null) return undefined;
    const text = (inner[1] ?? inner[2] ?? inner[3]) as string;
    if (printedByLine(text, printer) !== undefined) return undefined;
    const commands = parseShell(text).filter((command) => command.level === 0);
    if (commands.length === 0 || commands.some((command) => setupTool(command.argv))) return undefined;
    return text;
  };
  if (argv[0] !== undefined && /^(?:\$\(|`)/.test(argv[0])) return runs(argv[0]);
  if (program === "source" || program === "." || (program !== undefined && SHELLS.has(program))) {
    const file = argv.slice(1).find((word) => !word.startsWith("-"));
    if (file !== undefined && file.startsWith("<(")) return runs(file);
  }
  return undefined;
}

/** Interpreter options after which no script is read from stdin: a module, a test runner, a version, help, a REPL. */
const NO_SCRIPT = new Set(["-m", "--test", "-v", "-V", "--version", "-h", "--help", "-i", "--interactive", "-l", "-c", "-e"]);

/** Interpreters that run a script read from stdin when given no script (or `-`). */
const STDIN_INTERPRETERS = /^(?:python[\d.]*|pypy[\d.]*|node|nodejs|perl|ruby|php|lua|luajit)$/;

/**
 * A shell or an interpreter that takes its script from stdin: no `-c` code and no script
 * file (or `-`, `/dev/stdin`), or `-s`; `source /dev/stdin`. `bash -n` only checks it.
 */
function readsScriptOnStdin(program: string | undefined, argv: readonly string[], code: readonly RunCode[], env: ReadonlyMap<string, string>): boolean {
  if (program === undefined) return false;
  const args = argv.slice(1);
  if (program === "source" || program === ".") return args[0] === undefined || STDIN_FILES.has(args[0]);
  const shell = SHELLS.has(program);
  // `BASH_ENV=/dev/stdin bash -c :`: the startup file it reads first.
  if (shell && ["BASH_ENV", "ENV"].some((name) => STDIN_FILES.has(env.get(name) ?? ""))) return true;
  // `node --test`, `python3 -V`: no script is read at all.
  if (!shell && (!STDIN_INTERPRETERS.test(program) || code.length > 0 || args.some((arg) => NO_SCRIPT.has(arg) || arg.startsWith("--test")))) return false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--" || STDIN_FILES.has(arg)) return i + 1 >= args.length || STDIN_FILES.has(arg) || STDIN_FILES.has(args[i + 1] as string);
    if (shell && /^-[A-Za-z]*[cn][A-Za-z]*$/.test(arg)) return false;
    if (shell && /^-[A-Za-z]*s[A-Za-z]*$/.test(arg)) return true;
    if (shell && (SHELL_ARG_OPTIONS.has(arg) || /^[-+][A-Za-z]*[oO]$/.test(arg))) {
      i++;
      continue;
    }
    if (!shell && INTERPRETER_VALUED.unknown.has(arg)) {
      i++;
      continue;
    }
    if (!arg.startsWith("-") && !(shell && arg.startsWith("+"))) return false;
  }
  return true;
}

/** `sh -c CODE NAME ARGS…`: the code with `$0` the name and `"$@"`, `$1`… the words after it. */
function withArgs(code: string, after: readonly string[]): string {
  if (after.length === 0) return code;
  return positionalBound(boundScript(code, after[0] as string), after.slice(1));
}

/** `${X:=value}`, `${X=value}`: a default the expansion assigns where X is not set (name, value). */
export const DEFAULT_ASSIGNED = /\$\{(\w+):?=([^{}]*)\}/g;

/** The words of `set -- LINE`: a shell line of positional parameters, as kept or given. */
export function positionalWords(line: string): string[] {
  return parseShell(`set -- ${line}`)[0]?.argv.slice(2) ?? [];
}

/** Where OMP's kept shell holds its positional parameters (as a shell line), among its variables. */
export const KEPT_POSITIONAL = "@";

/** `shift`, `shift N` and `set -- WORDS` where a command starts: they change the positional parameters for what follows. */
const POSITIONAL_CHANGE = /(^|[;&|\n{(]|\b(?:then|do|else)\b)([ \t]*)(shift(?:[ \t]+(\d+))?|set[ \t]+--((?:[ \t]+[^;&|\n)}]*)?))(?=[ \t]*(?:$|[;&|\n)}]))/g;

/** `"${@:2}"`, `${*:2:1}`: a slice of the positional parameters (from 1; 0 is the script's name). */
const ARGS_SLICE = /"\$\{[@*]:(\d+)(?::(\d+))?\}"|\$\{[@*]:(\d+)(?::(\d+))?\}/g;

/**
 * `text` with its positional parameters (`"$@"`, `$*`, `$1`…`$9`, `${@:2}`) replaced by
 * `args`, each a word of its own, as `shift` and `set --` leave them along the text (read
 * in order, a loop's body once). Undefined `args`: not known until a `set --`, and left as
 * written before it. `numbered`: `$1`… too (a script's are bound as variables instead).
 */
function positionalBound(text: string, args: readonly string[] | undefined, numbered = true): string {
  if (args === undefined && !/\bset[ \t]+--/.test(text)) return text;
  const bind = (part: string, given: readonly string[] | undefined): string => {
    if (given === undefined) return part;
    const sliced = part.replace(ARGS_SLICE, (_whole, a?: string, b?: string, c?: string, d?: string) => {
      const from = Number(a ?? c);
      const count = b ?? d;
      const words = from === 0 ? given : given.slice(from - 1, count === undefined ? undefined : from - 1 + Number(count));
      return words.length === 0 ? "" : shellLine(words);
    });
    const all = sliced.replace(ALL_ARGS, given.length === 0 ? "" : shellLine(given));
    if (!numbered) return all;
    // `${1%.*}`, `${1##*/}`, `${1:-x}`: worked out as a named variable's are (what is not stays, a path built at run time).
    const byNumber = new Map(given.slice(0, 9).map((value, i) => [String(i + 1), value]));
    const operated = all.replace(/\$\{[1-9](?:%%|%|##|#|:?[-=+])[^{}]*\}/g, (whole) => {
      const value = expandVars(whole, byNumber);
      return value === whole ? whole : value.replace(/["\\$`]/g, "\\$&");
    });
    // `"$1"` is one word; a bare `$1` is split as the shell splits it (`sh -c '$1' _ 'git commit -n'` runs git).
    return numbered
      ? operated.replace(/("?)\$(?:\{([1-9])\}|([1-9]))("?)/g, (_whole, open: string, braced: string | undefined, plain: string | undefined, close: string) => {
          const n = braced ?? plain;
          const value = given[Number(n) - 1] ?? "";
          if (open !== "" && close !== "") return shellLine([value]);
          // `"$1/x"`: inside a quoted word that goes on, the value as double quotes hold it (the quote stays).
          if (open !== "" || close !== "") return `${open}${value.replace(/["\\$`]/g, "\\$&")}${close}`;
          return shellLine(value.split(/\s+/).filter(Boolean));
        })
      : all;
  };
  let out = "";
  let at = 0;
  let current = args;
  for (const match of text.matchAll(POSITIONAL_CHANGE)) {
    const start = (match.index ?? 0) + (match[1] as string).length + (match[2] as string).length;
    const change = match[3] as string;
    out += bind(text.slice(at, start), current);
    if (change.startsWith("shift")) current = current?.slice(Number(match[4] ?? 1));
    else current = positionalWords(bind(match[5] ?? "", current));
    out += change;
    at = start + change.length;
  }
  return out + bind(text.slice(at), current);
}

/** `git ci …` where `ci` is an alias: what git runs instead (git words, or a `!` shell line). */
function gitAliasRun(run: RunCommand): { argv: string[]; shell?: undefined } | { shell: string; argv?: undefined } | undefined {
  if (run.program !== "git") return undefined;
  const args = run.argv.slice(1);
  let i = 0;
  let cwd = run.scope.cwd;
  const inline: GitConfigEntry[] = [];
  // `--git-dir` brings that repository's config, and its aliases, whatever the cwd.
  let gitDir: string | undefined;
  for (; i < args.length && (args[i] as string).startsWith("-"); i++) {
    const arg = args[i] as string;
    if (arg.startsWith("--git-dir=")) gitDir = path.resolve(cwd ?? process.cwd(), arg.slice("--git-dir=".length));
    if (!["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"].includes(arg)) continue;
    const value = args[++i] ?? "";
    if (arg === "-C") cwd = path.resolve(cwd ?? process.cwd(), value);
    if (arg === "--git-dir") gitDir = path.resolve(cwd ?? process.cwd(), value);
    if (arg === "-c" && value.includes("=")) inline.push({ key: normalizeKey(value.slice(0, value.indexOf("="))), value: value.slice(value.indexOf("=") + 1) });
  }
  const subcommand = args[i];
  if (subcommand === undefined || GIT_COMMANDS.has(subcommand)) return undefined;
  const alias = gitAliases({ cwd, env: run.env, inline, ...(gitDir !== undefined ? { gitDir } : {}) }).get(subcommand.toLowerCase());
  if (alias === undefined) return undefined;
  const rest = args.slice(i + 1);
  if (alias.startsWith("!")) return { shell: [alias.slice(1), ...rest.map((word) => shellLine([word]))].join(" ") };
  return { argv: [run.argv[0] as string, ...args.slice(0, i), ...splitString(alias), ...rest] };
}

/** git's own commands: an alias of one of these names is never used. */
export const GIT_COMMANDS = new Set(
  "add am annotate apply archive bisect blame branch bundle checkout cherry cherry-pick clean clone commit config describe diff fetch format-patch fsck gc grep init log ls-files merge mv notes pull push range-diff rebase reflog remote reset restore revert rm shortlog show sparse-checkout stash status submodule switch tag update-ref worktree".split(" "),
);

/** Every command a call runs, for gates that look at each (the first reason wins; its prefix says where it came from). */
export function walkCall(input: HookInput, visit: (run: RunCommand) => string | undefined, home?: string): string | undefined {
  const call = walkedCall(input, home);
  if (call === undefined) return undefined;
  for (const walk of call.walks) {
    for (const run of walk.runs) {
      const reason = visit(run);
      if (reason !== undefined) return call.prefix + reason;
    }
    if (walk.end !== undefined) return call.prefix + walk.end;
  }
  return undefined;
}

/** One script's walk: the commands it runs, in the order a visitor sees them, and the walker's own refusal after them (too deep), if any. */
interface Walk {
  runs: RunCommand[];
  end: string | undefined;
}

/**
 * Every shell gate of a dispatch reads the same call (the same input object): it is
 * walked once, and each gate's visitor is handed the same commands in the same order,
 * stopping where the visitor refuses, as a walk of its own would. Kept by the input
 * object only, so no walk outlives its dispatch: a later call with the same text is
 * walked again against the files as they are then (a git alias defined in between).
 */
const walksByInput = new WeakMap<HookInput, Map<string, { walks: Walk[]; prefix: string } | undefined>>();

function walkedCall(input: HookInput, home: string | undefined): { walks: Walk[]; prefix: string } | undefined {
  let byHome = walksByInput.get(input);
  if (byHome === undefined) {
    byHome = new Map();
    walksByInput.set(input, byHome);
  }
  // A gate that names the harness's home and one that leaves it to the walker mean the same home: one walk.
  const key = home ?? (process.env.HOME || os.homedir());
  if (byHome.has(key)) return byHome.get(key);
  const call = readableScripts(input);
  let walked: { walks: Walk[]; prefix: string } | undefined;
  if (call !== undefined) {
    // A cwd given as `/p/l/..` is where the kernel's walk of it ends (l a link), not /p.
    // OMP's bash runs in the session's shell: what earlier calls left there is there before the line (the call's own env wins).
    const kept = input.omp?.shell_kept;
    // A kept variable with several values (one per line) holds the newest, and each is read.
    const keptVars = Object.entries(kept?.vars ?? {}).filter(([name]) => name !== KEPT_POSITIONAL).map(([name, value]): [string, string[]] => [name, value.split("\n")]);
    const positional = kept?.vars[KEPT_POSITIONAL];
    const alternatives = new Map(keptVars.filter(([name, values]) => values.length > 1 && call.env?.[name] === undefined));
    const scope: Scope = {
      env: new Map([...keptVars.map(([name, values]): [string, string] => [name, values.at(-1) as string]), ...Object.entries(call.env ?? {})]),
      ...(alternatives.size > 0 ? { alternatives } : {}),
      ...(positional !== undefined ? { positional: positionalWords(positional) } : {}),
      cwd: resolvedPath(input.cwd, "."),
      home: key,
      ...(kept !== undefined ? { functions: new Map(Object.entries(kept.functions)), aliases: new Map(Object.entries(kept.aliases)) } : {}),
    };
    const walks = call.scripts.map((script): Walk => {
      const runs: RunCommand[] = [];
      const end = walkShell(script, scope, (run) => {
        runs.push(asItStood(run));
        return undefined;
      });
      return { runs, end };
    });
    walked = { walks, prefix: call.prefix };
  }
  byHome.set(key, walked);
  return walked;
}

/** The files a command's code writes by a literal path (`open(".git/config", "a")`, after its own chdir too). */
export function codeWriteTargets(run: RunCommand): WriteTarget[] {
  return run.code.flatMap(({ code, language }) => readCode(code, language).writes.map((w): WriteTarget => ({ word: w.path, effect: "writes", reachesBelow: false })));
}

/**
 * What a command changes, as the path gates judge it: its redirections and writers'
 * targets, what its program's language or a wrapper writes, and `extra`; beside each
 * glob, what it matches when the command runs (shell-writers.ts withGlobMatches).
 */
export function commandTargets(run: RunCommand, extra: readonly WriteTarget[] = []): WriteTarget[] {
  const cwd = run.scope.unknownCwd === undefined ? run.scope.cwd ?? process.cwd() : undefined;
  const targets = [...writeTargets(run.command, run.argv), ...run.otherWrites, ...extra];
  // Run from either of two folders: a relative path is each of the two.
  const also = run.scope.alsoCwd;
  const both = also === undefined ? targets : [...targets, ...targets.filter((t) => !path.isAbsolute(t.word) && !/^[~$]/.test(t.word) && !isDynamic(t.word)).map((t) => ({ ...t, word: path.resolve(also, t.word) }))];
  return withGlobMatches(both, cwd, run.scope.links);
}

/**
 * A command as a visitor would have seen it during the walk: the line's written files
 * go on changing after it (`git --git-dir=o x; echo true > s.sh`, where alias x runs
 * s.sh), and a gate that walks on from it (a git alias, a rebase's exec) must read
 * them as they were when the command ran. Each gets its own copy.
 */
function asItStood(run: RunCommand): RunCommand {
  const written = run.scope.written;
  if (written === undefined) return run;
  return { ...run, scope: { ...run.scope, written: written.view() } };
}

/**
 * What a call runs as shell: a shell call's command (with OMP's bash `env`), or the
 * readable command lines of a code-execution call. Undefined for other tools.
 */
export function readableScripts(input: HookInput): { scripts: string[]; env?: Record<string, string>; prefix: string } | undefined {
  const toolName = input.tool_name ?? input.omp?.tool_name;
  if (toolName === undefined) return undefined;
  const kind = input.omp?.kind ?? callKind(toolName, input.tool_input);
  if (kind === "shell") {
    const command = shellCommandOf(input.tool_input) ?? shellCommandOf(input.omp?.tool_input);
    if (command === undefined) return undefined;
    const env = shellEnvOf(input.tool_input) ?? shellEnvOf(input.omp?.tool_input);
    // A command read out of code (eval's subprocess call) says where it came from.
    const outer = input.omp?.tool_name;
    const fromCode = outer !== undefined && outer !== toolName && callKind(outer, input.omp?.tool_input) === "code";
    // Text typed into a hub process may go to a REPL, a debugger or an editor, not a shell: read it as each would.
    const typed = outer === "hub" ? typedCommands(command) : [];
    return { scripts: [command, ...typed], ...(env ? { env } : {}), prefix: fromCode ? `${outer} code runs a command: ` : "" };
  }
  if (kind !== "code") return undefined;
  const code = codeOf(toolName, input.tool_input);
  if (code === undefined) return undefined;
  const fields = (input.tool_input ?? {}) as Record<string, unknown>;
  if (code.language === "program") {
    const program = typeof fields.program === "string" ? fields.program : undefined;
    const args = Array.isArray(fields.args) ? fields.args.filter((a): a is string => typeof a === "string") : [];
    return program === undefined ? undefined : { scripts: [shellLine([program, ...args])], prefix: `${toolName} runs: ` };
  }
  const scripts = handedToProcesses(readCode(code.code, code.language));
  // A debugger evaluates an expression or runs its own command line (gdb's `shell`, lldb's `platform shell`);
  // a custom request may be a launch of its own (`arguments: {program, args}`).
  if (programName(toolName.toLowerCase()) === "debug") {
    scripts.push(...commandsInText(code.code));
    const custom = fields.arguments !== null && typeof fields.arguments === "object" ? (fields.arguments as Record<string, unknown>) : undefined;
    const program = typeof custom?.program === "string" ? custom.program : undefined;
    const args = Array.isArray(custom?.args) ? custom.args.filter((a): a is string => typeof a === "string") : [];
    if (program !== undefined) scripts.push(shellLine([program, ...args]));
  }
  return { scripts, prefix: `${toolName} code runs a command: ` };
}

/** The command lines code hands a process: its literal commands, and (code that starts processes may pass any literal through a variable) every literal. */
function handedToProcesses(reading: CodeReading): string[] {
  return [...reading.commands, ...(reading.startsProcesses ? reading.literals : [])];
}

/** The commands a line typed into some interactive program runs: its shell escapes, and what code in it hands a process. */
function typedCommands(line: string): string[] {
  return [...commandsInText(line), ...handedToProcesses(readCode(line, "unknown"))];
}

// ---------------------------------------------------------------------------
// Wrappers: commands that run the rest of their arguments as a command.

interface WrapperSpec {
  /** Options that take the next word as their value. */
  argOptions: readonly string[];
  /** Operands before the command (timeout's DURATION, flock's lock file, chroot's root). */
  operands?: number;
  /** `NAME=value` words before the command are its environment (env, sudo). */
  assignments?: boolean;
  /** Options after which nothing runs (`command -v git` only looks git up, `ionice -p` sets a running process). */
  lookupOptions?: readonly string[];
  /** Options whose value is a shell command line the wrapper runs (`flock -c`, `su -c`, `script -c`). */
  scriptOptions?: readonly string[];
  /** The rest of the words is one shell line (watch and sg hand it to `sh -c`). */
  restIsScript?: boolean;
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: { argOptions: ["-u", "--unset", "-C", "--chdir", "-P", "--block-signal", "--default-signal", "--ignore-signal"], assignments: true },
  sudo: { argOptions: ["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R", "--user", "--group", "--host", "--prompt", "--chdir", "--role", "--type", "--other-user", "--command-timeout", "--close-from", "--chroot"], assignments: true },
  doas: { argOptions: ["-u", "-C"] },
  pkexec: { argOptions: ["--user"] },
  run0: { argOptions: ["-u", "--user", "-g", "--group", "-D", "--chdir", "--setenv", "--description", "--slice", "--nice", "--unit", "--property"] },
  command: { argOptions: [], lookupOptions: ["-v", "-V"] },
  builtin: { argOptions: [] },
  exec: { argOptions: ["-a"] },
  nohup: { argOptions: [] },
  // `coproc rm -rf d`: runs the command beside the shell (`coproc NAME { …; }` names it).
  coproc: { argOptions: [] },
  setsid: { argOptions: [] },
  time: { argOptions: ["-o", "-f", "--output", "--format"] },
  nice: { argOptions: ["-n", "--adjustment"] },
  ionice: { argOptions: ["-c", "-n", "--class", "--classdata"], lookupOptions: ["-p", "-P", "-u", "--pid", "--pgid", "--uid"] },
  chrt: { argOptions: ["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"], operands: 1, lookupOptions: ["-p", "--pid"] },
  taskset: { argOptions: [], operands: 1, lookupOptions: ["-p", "--pid"] },
  numactl: { argOptions: ["-C", "-N", "-m", "-i", "-p", "-P", "--cpunodebind", "--membind", "--physcpubind", "--interleave", "--preferred", "--preferred-many"] },
  timeout: { argOptions: ["-s", "--signal", "-k", "--kill-after"], operands: 1 },
  stdbuf: { argOptions: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  // `--replace` takes its value only after `=` (`--replace` alone is `{}`), as `-i` does.
  xargs: { argOptions: ["-I", "-n", "-P", "-L", "-d", "-s", "-a", "-E", "--max-args", "--max-procs", "--delimiter", "--arg-file", "--max-lines", "--max-chars", "--eof", "--process-slot-var"] },
  flock: { argOptions: ["-w", "--wait", "--timeout", "-E", "--conflict-exit-code"], operands: 1, scriptOptions: ["-c", "--command"] },
  strace: { argOptions: ["-o", "-e", "-p", "-s", "-u", "-a", "-b", "-I", "-E", "-S", "-P", "-O", "-X", "--output", "--trace", "--signal", "--status", "--attach", "--user", "--env", "--trace-path", "--string-limit", "--columns"] },
  ltrace: { argOptions: ["-o", "-e", "-p", "-s", "-u", "-a", "-A", "-D", "-F", "-l", "-n", "-w", "-x", "--output", "--library", "--indent", "--where"] },
  unbuffer: { argOptions: [] },
  chronic: { argOptions: [] },
  busybox: { argOptions: [] },
  chroot: { argOptions: ["--userspec", "--groups"], operands: 1 },
  nsenter: { argOptions: ["-t", "--target", "-S", "--setuid", "-G", "--setgid"] },
  unshare: { argOptions: ["--propagation", "-R", "--root", "-w", "--wd", "-S", "--setuid", "-G", "--setgid", "--map-user", "--map-group"] },
  firejail: { argOptions: [] },
  faketime: { argOptions: [], operands: 1 },
  caffeinate: { argOptions: ["-t", "-w"] },
  "dbus-run-session": { argOptions: ["--config-file", "--dbus-daemon"] },
  "ssh-agent": { argOptions: ["-a", "-E", "-P", "-t", "-O"] },
  "systemd-run": { argOptions: ["-u", "--unit", "-p", "--property", "--description", "--slice", "-M", "--machine", "-H", "--host", "--uid", "--gid", "--nice", "-D", "--working-directory", "--on-active", "--on-boot", "--on-calendar"] },
  script: { argOptions: ["-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing", "-m", "--logging-format"], scriptOptions: ["-c", "--command"] },
  su: { argOptions: ["-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"], scriptOptions: ["-c", "--command", "--session-command"] },
  runuser: { argOptions: ["-u", "--user", "-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"], scriptOptions: ["-c", "--command", "--session-command"] },
  watch: { argOptions: ["-n", "--interval", "-q", "--equexit", "-d", "--differences"], restIsScript: true },
  sg: { argOptions: [], operands: 1, scriptOptions: ["-c"], restIsScript: true },
  // ssh joins its words after the host into one line for the remote shell (which may be this machine).
  ssh: { argOptions: ["-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w", "-B"], operands: 1, restIsScript: true },
  valgrind: { argOptions: [] },
  rlwrap: { argOptions: ["-b", "-C", "-D", "-e", "-f", "-g", "-H", "-l", "-O", "-p", "-P", "-q", "-s", "-S", "-t", "-w", "-z", "--break-chars", "--command-name", "--history-no-dupes", "--extra-char-after-completion", "--file", "--forget-matching", "--history-filename", "--logfile", "--multi-line-ext", "--prompt-colour", "--pre-given", "--quote-characters", "--histsize", "--substitute-prompt", "--set-term-name", "--wrapper", "--filter"] },
  proot: { argOptions: ["-r", "-b", "-m", "-w", "-q", "-k", "--rootfs", "--bind", "--mount", "--cwd", "--qemu", "--kernel-release"] },
  entr: { argOptions: [], scriptOptions: ["-s"] },
};

/** The command a wrapper chain runs, and the shell lines wrappers run on the way. */
/** The options by which a wrapper names the directory its command runs in. */
const DIRECTORY_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  env: ["-C", "--chdir"],
  sudo: ["-D", "--chdir"],
  run0: ["-D", "--chdir"],
  unshare: ["-w", "--wd"],
  nsenter: ["-w", "--wd", "--wdns"],
  "systemd-run": ["-D", "--working-directory"],
};

/** `env -C DIR`, `env -iC DIR` (a cluster), `env --chdir=DIR`, `sudo -D DIR`, `unshare -w DIR`: the directory a wrapper runs its command in. */
function wrapperDirectory(program: string, args: readonly string[]): string | undefined {
  const options = DIRECTORY_OPTIONS[program] ?? [];
  if (options.length === 0) return undefined;
  const letters = options.filter((option) => /^-[A-Za-z]$/.test(option)).map((option) => option.slice(1));
  const spec = WRAPPERS[program];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (options.includes(arg)) return args[i + 1];
    const long = options.find((option) => option.startsWith("--") && arg.startsWith(`${option}=`));
    if (long !== undefined) return arg.slice(long.length + 1);
    // A cluster of single letters: the directory option's value is the rest of it, or the next word.
    if (/^-[A-Za-z]/.test(arg) && !arg.startsWith("--")) {
      const at = [...arg.slice(1)].findIndex((letter) => letters.includes(letter));
      if (at !== -1) return arg.length > at + 2 ? arg.slice(at + 2) : args[i + 1];
    }
    if (spec?.argOptions.includes(arg)) i++;
    else if (!arg.startsWith("-") && !/^[A-Za-z_]\w*=/.test(arg)) return undefined;
  }
  return undefined;
}

/** The dynamic loader, which runs the program it is given (`/lib64/ld-linux-x86-64.so.2 /usr/bin/git …`). */
const LOADER = /^ld(?:-linux[\w.-]*|-musl[\w.-]*)?\.so(?:\.\d+)*$/;
const LOADER_SPEC: WrapperSpec = { argOptions: ["--argv0", "--preload", "--library-path", "--audit", "--inhibit-rpath", "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask"] };

/** The command a line runs once its wrappers are taken off (`command curl …`, `timeout 9 curl …`: curl). */
export function unwrapped(argv: readonly string[]): string[] {
  return unwrap(argv, new Map()).argv;
}

function unwrap(start: readonly string[], env: Map<string, string>): { argv: string[]; scripts: string[]; xargs: boolean; job?: (input: string) => string; argFile?: string; chdir: string[]; argv0?: string } {
  let argv = [...start];
  const scripts: string[] = [];
  let xargs = false;
  const chdir: string[] = [];
  // `exec -a git-commit git -n`, `ld.so --argv0 NAME …`: the name the program is started under, which git and busybox go by.
  let argv0: string | undefined;
  const named = (words: string[]): string[] => {
    const program = words[0] === undefined ? "" : programName(words[0]);
    const as = argv0 === undefined ? undefined : programName(argv0);
    return as !== undefined && ((program === "git" && as.startsWith("git-")) || MULTI_CALL.has(program)) ? [as, ...words.slice(1)] : words;
  };
  for (let guard = 0; guard < 32; guard++) {
    const program = argv[0] === undefined ? undefined : programName(argv[0]);
    if (program === "exec" || (program !== undefined && LOADER.test(program))) {
      const at = argv.findIndex((word) => word === "-a" || word === "--argv0");
      if (at > 0) argv0 = argv[at + 1];
    }
    if (program === "find") {
      // find runs each -exec command itself; find stays the command (gates judge -delete).
      scripts.push(...findExecScripts(argv.slice(1)));
      return { argv, scripts, xargs, chdir };
    }
    if (program === "fd" || program === "fdfind") {
      // fd runs each -x/-X command itself, with the names it lists (as find's -exec).
      scripts.push(...fdExecScripts(argv));
      return { argv, scripts, xargs, chdir };
    }
    if (program === "parallel") {
      // `parallel CMD ::: ARGS` runs CMD with each ARG, through a shell; `parallel ::: 'CMD'` runs each ARG as a command.
      const run = parallelRun(argv);
      scripts.push(...run.scripts);
      // With no command and no `:::`, parallel runs the lines of its stdin: it stays the program.
      const argFile = run.argFile !== undefined ? { argFile: run.argFile } : {};
      if (run.job !== undefined) return { argv: [], scripts, xargs: true, chdir, job: run.job, ...argFile };
      if (run.argv[0] === "parallel" || run.argv.length === 0) return { argv: run.argv, scripts, xargs, chdir, ...argFile };
      if (run.argFile !== undefined && run.xargs) return { argv: run.argv, scripts, xargs: true, chdir, ...argFile };
      xargs ||= run.xargs;
      argv = run.argv;
      continue;
    }
    if (program === "gdb" && argv.includes("--args")) {
      argv = argv.slice(argv.indexOf("--args") + 1);
      continue;
    }
    // `npx -c '…'`, `npm exec -- git …`, `pnpm exec git …`: a package runner runs a command line or a command.
    const runner = runnerCommand(program, argv);
    if (runner !== undefined) {
      scripts.push(...runner.scripts);
      if (runner.argv.length === 0) return { argv: [], scripts, xargs, chdir };
      argv = runner.argv;
      continue;
    }
    const spec = program === undefined ? undefined : LOADER.test(program) ? LOADER_SPEC : WRAPPERS[program];
    if (spec === undefined) break;
    xargs ||= program === "xargs";
    const dir = wrapperDirectory(program as string, argv.slice(1));
    if (dir !== undefined) chdir.push(dir);
    const next = skipWrapper(program as string, spec, argv.slice(1), env, scripts);
    if (next === undefined) return { argv: [], scripts, xargs, chdir };
    argv = next;
  }
  return { argv: named(argv), scripts, xargs, chdir, ...(argv0 !== undefined ? { argv0 } : {}) };
}

/** Where the command word is after `time` (`-p`), `coproc` and `!`, which the shell reads before it (an alias or a function there is one). */
function commandStart(words: readonly string[]): number {
  let at = 0;
  while (words[at] === "time" || words[at] === "coproc" || words[at] === "!" || (words[at] === "-p" && words[at - 1] === "time")) at++;
  return at;
}

/**
 * What an alias expands to before `rest`: its words, when it is a plain command; else the
 * script the shell reads in its place — shell syntax in it, more than one definition kept
 * (each is read), or a trailing space that makes the next word an alias too.
 */
function aliasExpansion(alias: string, rest: readonly string[], aliases: ReadonlyMap<string, string>): string[] | string {
  const alternatives = alias.split("\n");
  const next = rest[0] === undefined ? undefined : aliases.get(rest[0]);
  const chained = next !== undefined && alternatives.some((alt) => /\s$/.test(alt));
  if (alternatives.length === 1 && !chained && !/[;&|<>(){}$`]/.test(alias)) return [...splitString(alias), ...rest];
  return alternatives
    .flatMap((alt) => (/\s$/.test(alt) && next !== undefined ? next.split("\n").map((n) => `${alt}${n} ${shellLine(rest.slice(1))}`) : [`${alt} ${shellLine(rest)}`]))
    .join("\n");
}

/** `env -S 'git commit -n'`: env splits the string into words itself (quotes honoured). */
function splitString(value: string): string[] {
  const [first] = parseShell(value);
  if (!first) return [];
  return [...first.assignments.map(({ name, value: v }) => `${name}=${v}`), ...first.argv];
}

function skipWrapper(program: string, spec: WrapperSpec, input: string[], env: Map<string, string>, scripts: string[]): string[] | undefined {
  let args = input;
  let i = 0;
  let restIsScript = spec.restIsScript === true;
  while (i < args.length && (args[i] as string).startsWith("-") && args[i] !== "-") {
    const arg = args[i] as string;
    i++;
    if (arg === "--") break;
    const [name, glued] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (program === "env" && (name === "-S" || name === "--split-string" || /^-S./s.test(arg))) {
      const value = glued ?? (name === "-S" || name === "--split-string" ? args[i++] : arg.slice(2)) ?? "";
      args = [...splitString(value), ...args.slice(i)];
      i = 0;
      continue;
    }
    if (spec.lookupOptions?.includes(name)) return undefined;
    // `script -qc CMD`, `su -lc CMD`: a cluster ending in the script option takes the next word.
    const clustered = /^-[A-Za-z]{2,}$/.test(arg) && spec.scriptOptions?.includes(`-${arg.at(-1)}`);
    if (spec.scriptOptions?.includes(name) || clustered) {
      const value = glued ?? args[i++];
      if (value !== undefined) scripts.push(value);
      restIsScript = false;
      continue;
    }
    if (program === "watch" && (name === "-x" || name === "--exec")) restIsScript = false;
    // `ssh -Ai key host`, `sudo -iu root`: a cluster of one-letter options whose last takes the next word.
    const clusterTakes = /^-[A-Za-z0-9]{2,}$/.test(arg) && spec.argOptions.includes(`-${arg.at(-1)}`);
    if ((spec.argOptions.includes(name) && glued === undefined) || clusterTakes) i++;
  }
  i += spec.operands ?? 0;
  // `su -c` and `flock -c` may follow the operands (`flock /tmp/lock -c '…'`, `su root -c '…'`).
  for (let j = i; j < args.length; j++) {
    const arg = args[j] as string;
    if (spec.scriptOptions?.includes(arg) && args[j + 1] !== undefined) {
      scripts.push(args[j + 1] as string);
      return undefined;
    }
  }
  for (; spec.assignments && i < args.length; i++) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(args[i] as string);
    if (!match) break;
    env.set(match[1] as string, match[2] as string);
  }
  if (spec.scriptOptions !== undefined && (program === "su" || program === "runuser") && !args.slice(0, i).some((a) => a === "-u" || a === "--user")) {
    // su's operands are a user and the shell's arguments, not a command.
    return scripts.length > 0 ? undefined : [];
  }
  const rest = args.slice(i);
  if (restIsScript && rest.length > 0) {
    scripts.push(rest.join(" "));
    return undefined;
  }
  return rest;
}


/** A cluster of fd's short flags that take no value, ending in `x` or `X` (`-Hx CMD`). */
const FD_EXEC_CLUSTER = /^-[HIusigFalLp0q1]+[xX]$/;
/** fd's options that run a command with the names it lists. */
const FD_EXEC = new Set(["-x", "--exec", "-X", "--exec-batch"]);
/** fd's placeholders for a listed name: the path, its base name, its folder, either without its extension. */
const FD_PLACEHOLDER = /\{(?:\/\/|\/\.|\/|\.)?\}/g;

/**
 * `fd … -x CMD ARGS ;` (and -X): CMD runs with each name fd lists, where a placeholder
 * (`{}`, `{/}`, `{//}`, `{.}`, `{/.}`) stands or else after ARGS. The name is the listing's
 * (listedName), or one built at run time where the listing cannot be told.
 */
function fdExecScripts(argv: readonly string[]): string[] {
  const scripts: string[] = [];
  // `-x CMD`, `--exec CMD`, `--exec=CMD`, and `x` or `X` ending a cluster of short options (`-Hx CMD`).
  const at = argv.findIndex((word, i) => i > 0 && (FD_EXEC.has(word) || /^--exec(?:-batch)?=/.test(word) || FD_EXEC_CLUSTER.test(word)));
  if (at === -1) return scripts;
  // The cluster's other flags still tell the listing (`-Hx`: hidden names too).
  const flags = FD_EXEC_CLUSTER.test(argv[at] as string) ? [(argv[at] as string).slice(0, -1)] : [];
  const joined = /^--exec(?:-batch)?=/.test(argv[at] as string) ? [(argv[at] as string).slice((argv[at] as string).indexOf("=") + 1)] : [];
  const end = argv.indexOf(";", at + 1) === -1 ? argv.length : argv.indexOf(";", at + 1);
  const command = [...joined, ...argv.slice(at + 1, end)];
  if (command.length === 0) return scripts;
  const listed = listedName([...argv.slice(0, at), ...flags, ...argv.slice(end + 1)]);
  const name = listed === undefined ? '"$(fd)"' : shellLine([listed]);
  const folder = listed === undefined ? '"$(fd)"' : shellLine([path.dirname(listed)]);
  const base = listed === undefined ? '"$(fd)"' : shellLine([path.basename(listed)]);
  const placed = command.some((word) => FD_PLACEHOLDER.test(word));
  FD_PLACEHOLDER.lastIndex = 0;
  const marked = placed ? command.map((word) => word.replace(FD_PLACEHOLDER, (p) => (p === "{//}" ? "FdFolder0" : p === "{/}" || p === "{/.}" ? "FdBase0" : "FdName0"))) : [...command, "FdName0"];
  scripts.push(shellLine(marked).replace(/FdFolder0/g, folder).replace(/FdBase0/g, base).replace(/FdName0/g, name));
  return scripts;
}

/** `find … -exec CMD {} ;` (and -execdir, -ok, -okdir): each runs CMD per file. */
function findExecScripts(args: readonly string[]): string[] {
  const scripts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(args[i] as string)) continue;
    const words: string[] = [];
    for (i++; i < args.length && args[i] !== ";" && args[i] !== "+"; i++) words.push(args[i] as string);
    if (words.length > 0) scripts.push(shellLine(words));
  }
  return scripts;
}

// ---------------------------------------------------------------------------
// Scripts a command runs: `bash -c '…'`, `sh <<EOF`, `eval "…"`, `python3 -c '…'`.

const SHELLS = new Set(["sh", "bash", "rbash", "zsh", "dash", "ksh", "ksh93", "mksh", "ash", "yash", "posh", "fish", "tcsh", "csh"]);
const SHELL_ARG_OPTIONS = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);

/** Interpreters whose inline code flag runs code Tama reads like eval's. */
const INTERPRETERS: Readonly<Record<string, { flags: readonly string[]; language: CodeLanguage }>> = {
  python: { flags: ["-c"], language: "python" },
  python3: { flags: ["-c"], language: "python" },
  node: { flags: ["-e", "--eval", "-p", "--print"], language: "javascript" },
  nodejs: { flags: ["-e", "--eval", "-p", "--print"], language: "javascript" },
  bun: { flags: ["-e", "--eval", "-p", "--print"], language: "javascript" },
  deno: { flags: ["eval"], language: "javascript" },
  perl: { flags: ["-e", "-E"], language: "unknown" },
  ruby: { flags: ["-e"], language: "unknown" },
  php: { flags: ["-r"], language: "unknown" },
  lua: { flags: ["-e"], language: "unknown" },
  luajit: { flags: ["-e"], language: "unknown" },
  rscript: { flags: ["-e"], language: "unknown" },
  r: { flags: ["-e"], language: "unknown" },
  julia: { flags: ["-e", "--eval", "-E", "--print"], language: "unknown" },
  pypy: { flags: ["-c"], language: "python" },
  pypy3: { flags: ["-c"], language: "python" },
  tsx: { flags: ["-e", "--eval", "-p", "--print"], language: "javascript" },
  "ts-node": { flags: ["-e", "--eval", "-p", "--print"], language: "javascript" },
  ipython: { flags: ["-c"], language: "python" },
  ipython3: { flags: ["-c"], language: "python" },
  qjs: { flags: ["-e", "--eval"], language: "javascript" },
  gjs: { flags: ["-c", "--command"], language: "javascript" },
  guile: { flags: ["-c"], language: "unknown" },
  racket: { flags: ["-e", "--eval"], language: "unknown" },
  elixir: { flags: ["-e", "--eval"], language: "unknown" },
  erl: { flags: ["-eval"], language: "unknown" },
  sbcl: { flags: ["--eval"], language: "unknown" },
  clojure: { flags: ["-e", "--eval"], language: "unknown" },
  bb: { flags: ["-e", "--eval"], language: "unknown" },
  groovy: { flags: ["-e"], language: "unknown" },
  csi: { flags: ["-e", "-eval"], language: "unknown" },
  swipl: { flags: ["-g"], language: "unknown" },
};

/** The code an interpreter is given on its command line (`python3 -c …`, `node -e …`, `perl -pie …`, `node --eval=…`). */
export function inlineCodeOf(program: string | undefined, argv: readonly string[]): RunCode[] {
  const spec = program === undefined ? undefined : INTERPRETERS[program] ?? INTERPRETERS[program.replace(/[\d.]+$/, "")];
  if (!spec) return [];
  const code: RunCode[] = [];
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    const glued = spec.flags.find((flag) => flag.startsWith("--") && arg.startsWith(`${flag}=`));
    if (spec.flags.includes(arg) && argv[i + 1] !== undefined) code.push({ code: argv[++i] as string, language: spec.language });
    else if (glued !== undefined) code.push({ code: arg.slice(glued.length + 1), language: spec.language });
    // `python3 -cCODE`, `perl -eCODE`: the code glued to its short flag.
    else if (/^-[A-Za-z]./s.test(arg) && spec.flags.includes(arg.slice(0, 2)) && !/^-[A-Za-z]+$/.test(arg)) code.push({ code: arg.slice(2), language: spec.language });
    else if (/^-[A-Za-z]+$/.test(arg) && spec.flags.some((o) => o.length === 2 && arg.endsWith(o[1] as string)) && argv[i + 1] !== undefined) {
      code.push({ code: argv[++i] as string, language: spec.language });
    }
  }
  return code;
}

function nestedScripts(program: string | undefined, argv: string[], stdin: string[], code: readonly RunCode[], printer: Printer): string[] {
  if (program === "eval") return [argv.slice(1).join(" ")];
  if (program === undefined) return [];
  // `mapfile -C f`, `readarray -C f`: f runs for each chunk read; `compgen -F f` and `compgen -C cmd` run theirs.
  if (program === "mapfile" || program === "readarray" || program === "compgen") {
    return argv.flatMap((word, i) => ((word === "-C" || (program === "compgen" && word === "-F")) && argv[i + 1] !== undefined ? [argv[i + 1] as string] : []));
  }
  // `trap 'cmd' DEBUG`, `trap -- 'cmd' ERR EXIT`: the action runs in this shell, before or after later commands (a later call's, in OMP's shell).
  if (program === "trap") {
    const operands = argv.slice(1).filter((word) => !/^-[-lp]*$/.test(word) || word === "-");
    return argv.includes("-p") || argv.includes("-l") || operands.length < 2 || operands[0] === "-" ? [] : [operands[0] as string];
  }
  // `at now <<< 'cmd'`, `batch`: the job is the script on stdin.
  if (program === "at" || program === "batch") return stdin;
  // `source /dev/stdin <<< 'cmd'`, `. <(echo 'cmd')`, `bash <(printf 'cmd')`: the file read is what was printed.
  if (program === "source" || program === "." || SHELLS.has(program)) {
    const file = argv.slice(1).find((w) => !w.startsWith("-") || w === "-");
    if (program === "source" || program === ".") {
      if (file === undefined || STDIN_FILES.has(file)) return stdin;
    }
    const printed = file === undefined ? undefined : substitutionText(file, printer);
    if (printed !== undefined) return [printed];
    if (program === "source" || program === ".") return [];
  }
  if (code.length > 0 || INTERPRETERS[program] || INTERPRETERS[program.replace(/[\d.]+$/, "")]) {
    return code.flatMap(({ code: text, language, fromFile }) => {
      const reading = readCode(text, language);
      if (fromFile === true) return reading.commands;
      return [...handedToProcesses(reading), ...(reading.startsProcesses ? literalRuns(reading.literals) : [])];
    });
  }
  if (!SHELLS.has(program)) return [];
  let readsString = false;
  // `-s`: the script is stdin, whatever operands follow (they are its `$1`, …).
  let readsStdin = false;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--" || arg === "-") {
      if (readsString) return argv[i + 1] === undefined ? [] : [withArgs(argv[i + 1] as string, argv.slice(i + 2))];
      return i + 1 === argv.length || readsStdin ? stdin : [];
    }
    if (arg === "--command" || arg === "-C") return argv.slice(i + 1, i + 2); // fish
    if (arg.startsWith("--command=")) return [arg.slice("--command=".length)];
    if (SHELL_ARG_OPTIONS.has(arg)) {
      i++;
    } else if (/^[-+][A-Za-z]+$/.test(arg)) {
      readsString ||= arg.startsWith("-") && arg.includes("c");
      readsStdin ||= arg.startsWith("-") && arg.includes("s");
      // `-euo pipefail`: a cluster ending in `o` takes the option's name next.
      if (/[oO]$/.test(arg)) i++;
    } else if (!arg.startsWith("-") && !arg.startsWith("+")) {
      // The first operand is the script itself (-c) or a script file (scriptFiles reads it; `/dev/stdin` is the stdin).
      return readsString ? [withArgs(arg, argv.slice(i + 1))] : readsStdin || STDIN_FILES.has(arg) ? stdin : [];
    }
  }
  return readsString ? [] : stdin;
}

