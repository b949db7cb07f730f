// Package and environment runners: `npx -c '…'`, `npm exec -- git …`, `pnpm exec git …`,
// `uv run …`, `bundle exec …`, `nix develop -c …`: a command line or a command they run.
// The shell walker unwraps them as it unwraps `env` or `sudo`.

interface RunnerSpec {
  /** Options that take the next word. */
  valued?: readonly string[];
  /** Options whose value is a shell line, and then nothing else runs (`npx -c`, `nix-shell --run`). */
  scriptOptions?: readonly string[];
  /** Flags that make the command words one shell line (`pnpm exec -c`). */
  shellMode?: readonly string[];
  /** Options after which the rest is the command (`nix develop -c CMD…`). */
  commandAfter?: readonly string[];
  /** Operands before the command (direnv exec DIR). */
  operands?: number;
  /** The words after the options are one shell line (`bun exec '…'`). */
  restIsScript?: boolean;
  /** Only a script option runs anything (nix-shell without --run opens a shell). */
  onlyScripts?: boolean;
  /** Tools to use come first, then `--` and the command (`mise exec node@20 -- git …`). */
  toolsThenDashes?: boolean;
  /** The first operand is a package whose program runs, with the words after `--` (`nix run nixpkgs#git -- …`). */
  installable?: boolean;
}

const NPM_VALUED = ["-p", "--package", "--prefix", "--cache", "-w", "--workspace", "--userconfig", "--registry", "-C", "--loglevel"];
const PNPM_VALUED = ["--filter", "-F", "-C", "--dir", "--workspace-concurrency", "--report-summary", "--package"];
const RUNNERS: Readonly<Record<string, RunnerSpec>> = {
  npx: { valued: NPM_VALUED, scriptOptions: ["-c", "--call"] },
  "npm exec": { valued: NPM_VALUED, scriptOptions: ["-c", "--call"] },
  "npm x": { valued: NPM_VALUED, scriptOptions: ["-c", "--call"] },
  "pnpm exec": { valued: PNPM_VALUED, shellMode: ["-c", "--shell-mode"] },
  "pnpm dlx": { valued: PNPM_VALUED, shellMode: ["-c", "--shell-mode"] },
  pnpx: { valued: PNPM_VALUED, shellMode: ["-c", "--shell-mode"] },
  "yarn exec": {},
  "yarn dlx": { valued: ["-p", "--package"] },
  bunx: { valued: ["-p", "--package"] },
  "bun x": { valued: ["-p", "--package"] },
  "bun exec": { restIsScript: true },
  "uv run": { valued: ["--with", "--python", "-p", "--directory", "--project", "--package", "--env-file", "--extra", "--group", "--index", "--index-url"] },
  "uv tool run": { valued: ["--with", "--python", "-p", "--from", "--index", "--index-url"] },
  uvx: { valued: ["--with", "--python", "-p", "--from", "--index", "--index-url"] },
  "pipx run": { valued: ["--spec", "--python", "--index-url"] },
  "poetry run": { valued: ["-C", "--directory", "-P", "--project"] },
  "pipenv run": {},
  "pdm run": { valued: ["-p", "--project"] },
  "hatch run": {},
  "rye run": {},
  "pixi run": { valued: ["-e", "--environment", "--manifest-path"] },
  "pixi exec": { valued: ["-s", "--spec", "-c", "--channel"] },
  "bundle exec": {},
  "mise exec": { valued: ["-C", "--cd", "-j", "--jobs"], toolsThenDashes: true },
  "mise x": { valued: ["-C", "--cd", "-j", "--jobs"], toolsThenDashes: true },
  "asdf exec": {},
  "direnv exec": { operands: 1 },
  "conda run": { valued: ["-n", "--name", "-p", "--prefix", "--cwd"] },
  "mamba run": { valued: ["-n", "--name", "-p", "--prefix", "--cwd"] },
  "micromamba run": { valued: ["-n", "--name", "-p", "--prefix", "--cwd"] },
  "nix develop": { commandAfter: ["-c", "--command"], onlyScripts: true },
  "nix shell": { commandAfter: ["-c", "--command"], onlyScripts: true },
  "nix run": { installable: true },
  "nix-shell": { scriptOptions: ["--run", "--command"], valued: ["-p", "--packages", "-A", "--attr", "-I", "--arg", "--argstr"], onlyScripts: true },
  dotenv: { valued: ["-e", "-v", "-c", "-p"] },
};

/** The programs that are runners or have runner subcommands: any other command is answered at once. */
const RUNNER_PROGRAMS: ReadonlySet<string> = new Set(Object.keys(RUNNERS).map((key) => key.split(" ")[0] as string));

/** How far into a command line the runner's subcommand may sit (`npm --loglevel silent exec`). */
const SUBCOMMAND_WITHIN = 8;

/** The program words that name a runner (`npm exec`, `npx`, `uv tool run`), and where its own words start. */
function runnerOf(program: string, argv: readonly string[]): { spec: RunnerSpec; at: number } | undefined {
  if (!RUNNER_PROGRAMS.has(program)) return undefined;
  const single = RUNNERS[program];
  if (single !== undefined) return { spec: single, at: 1 };
  // The subcommand is the first word past the runner's own options that names one (`pnpm -C dir exec …`).
  for (let i = 1; i < argv.length && i <= SUBCOMMAND_WITHIN; i++) {
    const word = argv[i] as string;
    if (word === "--") return undefined;
    if (word.startsWith("-")) continue;
    const two = RUNNERS[`${program} ${word} ${argv[i + 1] ?? ""}`];
    if (two !== undefined) return { spec: two, at: i + 2 };
    const spec = RUNNERS[`${program} ${word}`];
    if (spec !== undefined) return { spec, at: i + 1 };
    // The first word that is no option's value is the subcommand: `npm run x` is not `npm x`.
    if (!RUNNER_VALUED.has(argv[i - 1] as string)) return undefined;
  }
  return undefined;
}

/** Options of the runners themselves that take the next word (`pnpm -C dir exec …`). */
const RUNNER_VALUED: ReadonlySet<string> = new Set([...NPM_VALUED, ...PNPM_VALUED, ...Object.values(RUNNERS).flatMap((spec) => spec.valued ?? [])]);

/**
 * What a package or environment runner runs: the command (its argv) and the shell
 * lines; undefined when `program` is not one. An empty argv: it runs no other command.
 */
export function runnerCommand(program: string | undefined, argv: readonly string[]): { argv: string[]; scripts: string[] } | undefined {
  if (program === undefined) return undefined;
  const runner = runnerOf(program, argv);
  if (runner === undefined) return undefined;
  const { spec } = runner;
  const scripts: string[] = [];
  // `pnpm -c exec '…'`: a flag before the subcommand counts too.
  let shell = argv.slice(1, runner.at).some((word) => spec.shellMode?.includes(word) === true);
  const words = argv.slice(runner.at);
  // `nix shell nixpkgs#git --command git …`, `mise exec node@20 -- git …`: the command follows its marker, wherever it is.
  const marker = words.findIndex((w) => spec.commandAfter?.includes(w) === true || (spec.toolsThenDashes === true && w === "--"));
  if (marker !== -1) return { argv: words.slice(marker + 1), scripts };
  if (spec.installable) {
    // `nix run nixpkgs#git -- commit …`: the installable's program with the words after `--`.
    const dashes = words.indexOf("--");
    const installable = words.find((w) => !w.startsWith("-"));
    const name = installable?.split("#").at(-1)?.split(/[/.]/).at(-1);
    return name === undefined ? { argv: [], scripts } : { argv: [name, ...(dashes === -1 ? [] : words.slice(dashes + 1))], scripts };
  }
  let i = 0;
  for (; i < words.length; i++) {
    const arg = words[i] as string;
    if (arg === "--") {
      i++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    const eq = arg.indexOf("=");
    const [name, glued] = arg.startsWith("--") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (spec.scriptOptions?.includes(name)) {
      const value = glued ?? words[++i];
      if (value !== undefined) scripts.push(value);
      return { argv: [], scripts };
    }
    if (spec.shellMode?.includes(name)) shell = true;
    else if (spec.valued?.includes(name) && glued === undefined) i++;
  }
  if (spec.onlyScripts) return { argv: [], scripts };
  i += spec.operands ?? 0;
  const rest = words.slice(i);
  if (rest.length === 0) return { argv: [], scripts };
  if (spec.restIsScript || shell) return { argv: [], scripts: [...scripts, rest.join(" ")] };
  return { argv: rest, scripts };
}
