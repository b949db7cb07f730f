// Package managers that install programs outside the project: into a global prefix or
// a user's bin directory that is on PATH (`npm i -g`, `pip install --user`, `go install`,
// `cargo install`, `pipx`, `uv tool`, `gem`, the system's). Besides changing files
// outside the project, a program installed there under a name the gates read (a package
// whose bin is `git`) would run in place of the system's in every later call, where Tama
// reads the system's. An install into a directory the command names is judged by that
// directory instead.
import { programName } from "./shell-words.ts";

export interface GlobalInstall {
  /** The command as the refusal names it (`npm install -g`). */
  how: string;
  /** Where it installs: a directory the command names (judged as any write is), or undefined for the tool's own global place. */
  into?: string;
  /** The tool's own global place, in words. */
  place: string;
}

const JS_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);
const CONDAS = new Set(["conda", "mamba", "micromamba"]);
const JS_INSTALLS = new Set(["install", "i", "add", "update", "up", "upgrade", "link", "ln"]);
const SYSTEM_MANAGERS: Readonly<Record<string, readonly string[]>> = {
  apt: ["install", "reinstall", "upgrade", "full-upgrade", "dist-upgrade"],
  "apt-get": ["install", "reinstall", "upgrade", "dist-upgrade"],
  dnf: ["install", "reinstall", "upgrade"],
  yum: ["install", "reinstall", "update"],
  apk: ["add", "upgrade"],
  pacman: ["-S", "-Syu", "-U"],
  zypper: ["install", "in", "update"],
  brew: ["install", "reinstall", "upgrade", "link"],
  port: ["install"],
};

/**
 * The value of `--name VALUE`, `--name=VALUE`, `-x VALUE`, `-xVALUE` or `-yx VALUE` among
 * `args`: the last one given, which is the one the tool takes.
 */
function valueOf(args: readonly string[], ...names: string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    for (const name of names) {
      if (arg === name) value = args[i + 1];
      else if (name.startsWith("--") && arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
      else if (/^-[A-Za-z]$/.test(name) && /^-[A-Za-z]+$/.test(arg) && arg.endsWith(name[1] as string) && arg.length > 2) value = args[i + 1];
      else if (/^-[A-Za-z]$/.test(name) && arg.startsWith(name) && arg.length > 2 && !/^-[A-Za-z]+$/.test(arg)) value = arg.slice(2);
    }
  }
  return value;
}

/** Options after which a tool only says what it would do. */
const NO_CHANGE = new Set(["--help", "-h", "--dry-run", "--dryrun", "--version"]);

/**
 * The install `argv` makes outside the project, when it is one; `env`: the command's
 * environment (GOBIN, npm's prefix). Undefined for installs into the project (a local
 * `npm install`, a virtualenv's pip) and for every other command.
 */
export function globalInstall(argv: readonly string[], env: ReadonlyMap<string, string>): GlobalInstall | undefined {
  const program = argv[0] === undefined ? undefined : programName(argv[0]);
  if (program === undefined) return undefined;
  const args = argv.slice(1);
  if (args.some((arg) => NO_CHANGE.has(arg)) && program !== "npm" && program !== "yarn") return undefined;
  const operands = args.filter((arg) => !arg.startsWith("-"));
  if (JS_MANAGERS.has(program)) {
    // npm reads its settings from the environment too: `npm_config_global=true` is -g, `npm_config_location=global` --location=global.
    const envGlobal = /^(?:true|1)$/i.test(env.get("npm_config_global") ?? env.get("NPM_CONFIG_GLOBAL") ?? "") || (env.get("npm_config_location") ?? env.get("NPM_CONFIG_LOCATION")) === "global";
    const global = args.some((arg) => arg === "-g" || arg === "--global" || arg === "--location=global") || (program === "yarn" && operands[0] === "global") || (program !== "yarn" && envGlobal);
    const sub = program === "yarn" && operands[0] === "global" ? operands[1] : operands[0];
    // `npm link` with no package links the project into the global prefix, with its bins; `npm link ../lib` links that folder there first.
    // yarn's and bun's `link` with no package register the project globally too.
    const globalLink = (sub === "link" || sub === "ln") && (operands.length === 1 || ((program === "npm" || program === "pnpm") && operands.slice(1).some((operand) => /^[./~]/.test(operand))));
    if (sub === undefined || !JS_INSTALLS.has(sub) || !(global || globalLink)) return undefined;
    const into = valueOf(args, "--prefix", "--global-dir") ?? env.get("npm_config_prefix") ?? env.get("NPM_CONFIG_PREFIX");
    return { how: `${program} ${sub}${global ? " -g" : ""}`, place: `${program}'s global prefix, whose bin directory is on PATH`, ...(into !== undefined ? { into } : {}) };
  }
  const pip = /^pip[\d.]*$/.test(program) ? args : /^python[\d.]*$/.test(program) && args[0] === "-m" && /^pip[\d.]*$/.test(args[1] ?? "") ? args.slice(2) : undefined;
  if (pip !== undefined) {
    if (!pip.includes("install")) return undefined;
    const name = /^pip/.test(program) ? program : "pip";
    const into = valueOf(pip, "--target", "-t", "--prefix", "--root");
    if (into !== undefined) return { how: `${name} install --target`, place: "the directory it names", into };
    // pip reads each option from PIP_<OPTION> too: PIP_USER=1 is --user, PIP_TARGET/PIP_PREFIX are --target/--prefix.
    const fromEnv = env.get("PIP_TARGET") ?? env.get("PIP_PREFIX") ?? env.get("PIP_ROOT");
    if (fromEnv !== undefined && fromEnv.length > 0) return { how: `${name} install (PIP_TARGET)`, place: "the directory it names", into: fromEnv };
    if (/^(?:1|true|yes|on)$/i.test(env.get("PIP_USER") ?? "")) return { how: `${name} install (PIP_USER)`, place: "the user's site-packages, whose bin directory (~/.local/bin) is on PATH" };
    if (/^(?:1|true|yes|on)$/i.test(env.get("PIP_BREAK_SYSTEM_PACKAGES") ?? "")) return { how: `${name} install (PIP_BREAK_SYSTEM_PACKAGES)`, place: "the system's Python" };
    if (pip.includes("--user")) return { how: `${name} install --user`, place: "the user's site-packages, whose bin directory (~/.local/bin) is on PATH" };
    if (pip.includes("--break-system-packages")) return { how: `${name} install --break-system-packages`, place: "the system's Python" };
    return undefined;
  }
  // `uv pip install --system`: into the system's Python; a --target or --prefix is judged as a write there.
  if (program === "uv" && operands[0] === "pip" && (operands[1] === "install" || operands[1] === "sync")) {
    const into = valueOf(args, "--target", "--prefix");
    if (into !== undefined) return { how: `uv pip ${operands[1]} --target`, place: "the directory it names", into };
    const python = valueOf(args, "--python", "-p");
    if (args.includes("--system") || args.includes("--break-system-packages") || /^(?:1|true|yes)$/i.test(env.get("UV_SYSTEM_PYTHON") ?? "") || (python !== undefined && python.startsWith("/"))) {
      return { how: `uv pip ${operands[1]} --system`, place: "the system's Python", ...(python !== undefined && python.startsWith("/") ? { into: python } : {}) };
    }
    return undefined;
  }
  // conda and its kin install into an environment of their own, outside the project unless `-p` names one in it.
  const conda = CONDAS.has(program) ? (operands[0] === "env" ? operands[1] : operands[0]) : undefined;
  if (conda !== undefined && ["install", "update", "upgrade", "create"].includes(conda)) {
    const into = valueOf(args, "-p", "--prefix");
    return { how: `${program} ${operands[0] === "env" ? "env " : ""}${conda}`, place: "a conda environment, whose bin directory is on PATH when it is active", ...(into !== undefined ? { into } : {}) };
  }
  // `dotnet tool install -g`: ~/.dotnet/tools; a local tool (the project's manifest) stays in the project.
  if (program === "dotnet" && operands[0] === "tool" && ["install", "update"].includes(operands[1] ?? "")) {
    const into = valueOf(args, "--tool-path");
    if (into !== undefined) return { how: `dotnet tool ${operands[1] as string} --tool-path`, place: "the directory it names", into };
    if (args.includes("-g") || args.includes("--global")) return { how: `dotnet tool ${operands[1] as string} -g`, place: "~/.dotnet/tools, on PATH" };
    return undefined;
  }
  // `corepack enable`: shims for yarn and pnpm beside node, on PATH.
  if (program === "corepack" && ["enable", "install"].includes(operands[0] ?? "") && (operands[0] === "enable" || args.includes("-g") || args.includes("--global"))) {
    const into = valueOf(args, "--install-directory");
    return { how: `corepack ${operands[0] as string}`, place: "node's bin directory, on PATH", ...(into !== undefined ? { into } : {}) };
  }
  // `cmake --install DIR`: into the prefix the build was configured with (/usr/local unless it was set); `--prefix` names it.
  // `cmake --install DIR`, `--target install`, `cmake -P cmake_install.cmake`, `ninja install`, `make install` is read through its makefile.
  const cmakeInstall = program === "cmake" && (args.includes("--install") || (args.includes("--build") && valueOf(args, "--target", "-t") === "install") || /(?:^|\/)cmake_install\.cmake$/.test(valueOf(args, "-P") ?? ""));
  if (cmakeInstall || (program === "ninja" && operands.includes("install"))) {
    // DESTDIR stages the whole install under a directory.
    const into = env.get("DESTDIR") || valueOf(args, "--prefix");
    return { how: program === "ninja" ? "ninja install" : "cmake --install", place: "the install prefix the build was configured with (/usr/local unless it was set); name one in the project with --prefix or DESTDIR", ...(into ? { into } : {}) };
  }
  if ((program === "pipx" && ["install", "inject", "upgrade", "reinstall"].includes(operands[0] ?? "")) || (program === "uv" && operands[0] === "tool" && ["install", "upgrade"].includes(operands[1] ?? ""))) {
    return { how: `${program} ${operands.slice(0, program === "uv" ? 2 : 1).join(" ")}`, place: "its own tools directory, whose bin directory is on PATH" };
  }
  if (program === "go" && operands[0] === "install") {
    const into = env.get("GOBIN");
    return { how: "go install", place: "GOBIN or ~/go/bin, on PATH", ...(into !== undefined ? { into } : {}) };
  }
  if (program === "cargo" && operands[0] === "install") {
    const into = valueOf(args, "--root");
    return { how: "cargo install", place: "~/.cargo/bin, on PATH", ...(into !== undefined ? { into } : {}) };
  }
  if (program === "gem" && ["install", "update"].includes(operands[0] ?? "")) {
    const into = valueOf(args, "--install-dir", "-i");
    return { how: `gem ${operands[0] as string}`, place: "the gem directory, whose bin directory is on PATH", ...(into !== undefined ? { into } : {}) };
  }
  const system = SYSTEM_MANAGERS[program];
  if (system !== undefined && args.some((arg) => system.includes(arg))) return { how: `${program} ${args.find((arg) => system.includes(arg)) as string}`, place: "the system" };
  return undefined;
}
