import { describe, expect, it } from "vitest";
import { blockGitHookBypass, findGitHookBypass } from "../../modules/gates/block-git-hook-bypass.ts";
import { parseShell } from "../../modules/gates/shell-words.ts";
import type { HookInput } from "../../modules/protocol/hook-input.ts";
import { parseGitConfig } from "../../modules/gates/git-config.ts";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { GateRuns } from "../../modules/engine/gate-run.ts";
import { HookEntry } from "../../modules/registry/registry.ts";
import { tmpdir } from "node:os";
import path from "node:path";

/** Command lines the gate refuses, with a fragment the reason must name. */
const REFUSED: [command: string, reason: string][] = [
  ["git commit --no-verify -m 'wip'", "git commit --no-verify skips the repository's pre-commit and commit-msg hooks; run the commit without it and fix what the hooks report"],
  ["git commit -n -m wip", "git commit -n (--no-verify) skips"],
  // What a pipe holds reaches a shell through a substitution, a descriptor copy, /dev/stdin, cat, and xargs's items.
  ['echo "git commit --no-verify" | bash -c "$(cat)"', "git commit --no-verify"],
  ['echo "git commit --no-verify" | bash <(cat)', "git commit --no-verify"],
  ['echo "git commit --no-verify" | eval "$(cat)"', "git commit --no-verify"],
  ['echo "git commit --no-verify" | bash -s "$(true)"', "git commit --no-verify"],
  ['echo "git commit --no-verify" | bash 3<&0 /dev/fd/3', "git commit --no-verify"],
  ['echo "git commit --no-verify" | bash /dev/stdin', "git commit --no-verify"],
  ['echo "git commit --no-verify" | cat | sh', "git commit --no-verify"],
  ['echo "git commit --no-verify" | xargs -I{} bash -c "{}"', "git commit --no-verify"],
  ['echo "git commit --no-verify" | xargs -d "\\n" sh -c', "git commit --no-verify"],
  ["echo 'commit --no-verify' | xargs -0 -I % sh -c 'git %'", "git commit --no-verify"],
  ['echo "git commit -n" | bash -c bash', "git commit -n"],
  ['echo "git commit -n" | bash -c "cat | sh"', "git commit -n"],
  ["bash -c 'git \"$@\"' _ commit --no-verify", "git commit --no-verify"],
  // An argument printed or computed at run time may be -n: refused where git reads it as an option.
  ['git commit "$(echo LW4= | base64 -d)"', "an argument built at run time may be --no-verify"],
  ["git commit $(./gen) -m x", "git commit '$(./gen)': an argument built at run time"],
  ["git commit `./gen`", "an argument built at run time"],
  ["git commit -$(./gen)", "an argument built at run time"],
  ["git commit --$(./gen)", "an argument built at run time"],
  ["F=$(./gen); git commit $F -m x", "an argument built at run time"],
  ["read F < <(./gen); git commit $F", "an argument built at run time"],
  ["./gen | while read f; do git commit $f; done", "an argument built at run time"],
  ['mapfile -t A < <(./gen); git commit "${A[@]}"', "an argument built at run time"],
  ["o=-x; git commit ${o/x/n} -m x", "an argument built at run time"],
  ["o=-N; git commit ${o,,} -m x", "an argument built at run time"],
  ["echo -n >/dev/null; git commit $_", "an argument built at run time"],
  ["git push origin $(./gen)", "an argument built at run time may be --no-verify, which skips the repository's pre-push hook"],
  ["git $(./gen)", "names git's command at run time"],
  ['printf -v o -- "-n"; git commit $o -m x', "git commit -n"],
  ["printf -v o '\\x2dn'; git commit $o -m x", "an argument built at run time"],
  ["declare -l o=-N; git commit $o -m x", "git commit -n"],
  ["declare -n R=Y; Y=-n; git commit $R", "an argument built at run time"],
  // Commits no commit hook saw, made or landed another way.
  ["git reset --soft $(git stash create 'feat: x') && git reset -q", "git stash create makes a commit from the work tree without running the repository's commit hooks"],
  ["git stash && git merge --ff-only stash@{0}", "git merge stash@{0} puts a stash's commit"],
  ["git stash && git cherry-pick -m 1 stash@{0}", "git cherry-pick stash@{0} puts a stash's commit"],
  ["git update-ref refs/heads/topic refs/stash", "puts a stash's commit"],
  ["git checkout -B topic stash@{0}", "puts a stash's commit"],
  ["printf 'tree %s\\n' $(git write-tree) | git hash-object -t commit -w --stdin | xargs git reset --soft", "git hash-object -t commit writes a commit"],
  ["printf 'commit refs/heads/topic\\n' | git fast-import --quiet", "git fast-import writes commits"],
  ["git stash && git am p.mbox", "git am commits each patch without running the pre-commit and commit-msg hooks"],
  ["git clone -q --bare . tmp.git && git --git-dir=tmp.git --work-tree=. commit -qam feat", "git commit with --git-dir=tmp.git runs the hooks of that repository"],
  ["GIT_DIR=tmp.git git push origin topic", "git push with GIT_DIR=tmp.git runs the hooks of that repository"],
  ["mkdir c && GIT_COMMON_DIR=$PWD/c git commit -qam feat", "runs the hooks of that repository, not this one's"],
  // Second red-team pass: splitting, globs, arrays, bash's own variables, stash and message refs, local clones, todo editors, BASH_ENV, a PATH outside the harness's.
  ["git commit -m x$IFS-n", "git commit -n (--no-verify)"],
  ["touch ./-n; git commit -m x [-]n", "an argument built at run time"],
  ["a=(-n); git commit -m x $a", "an argument built at run time"],
  ["[[ --no-verify =~ .* ]] && git commit -m x $BASH_REMATCH", "an argument built at run time"],
  ["getopts n: o -n --no-verify; git commit -m x $OPTARG", "an argument built at run time"],
  ["select o in --no-verify; do git commit -m x $o; break; done <<< 1", "git commit --no-verify"],
  ["git stash -q; git reset -q --hard stash^{commit}", "puts a stash's commit"],
  ['git stash -q; git reset -q --soft ":/WIP on"', "names a commit by its message"],
  ["git pull -q --ff-only ./sub/c topic", "brings in commits made in a repository on this disk"],
  ["GIT_SEQUENCE_EDITOR=\"sed -i '1iexec git commit -qanm x'\" git rebase -i HEAD", "edits the rebase's todo list with a program"],
  ['echo "exit 0" > x.sh; BASH_ENV=./x.sh git commit -m x', "every bash a hook starts runs that file first"],
  ["PATH=/tmp/zz2:$PATH git commit -m x", "git commit with PATH starting at /tmp/zz2"],
  // Hooks that would run a stand-in: lefthook's own override, and a PATH the line puts a project folder first in.
  ["LEFTHOOK_BIN=true git commit -m x", "LEFTHOOK_BIN=true makes lefthook's hook scripts run that program"],
  ["PATH=./fb:$PATH git commit -m x", "git commit with PATH starting at ./fb: the hooks would run the programs found there"],
  // git's own files, reached another way.
  ["git config foo.hooksPath /dev/null && git config --rename-section foo core", "changes git's core section, where core.hooksPath lives"],
  ["printf '[core]\\n\\thooksPath = /dev/null\\n' > .git/worktrees/wt/config.worktree", ".git/worktrees/wt/config.worktree, git's config"],
  ["cp x/config .git/", "git's own directory, where its config and hooks live"],
  ["tar -xf a.tar -C .git", "git's own directory"],
  ["ln .git/config gc && printf '[core]\\n\\thooksPath = /dev/null\\n' >> gc", "ln .git/config makes a hard link to git's own file"],
  ["cp -l .git/hooks/pre-commit pc", "makes a hard link to git's own file"],
  ["python3 -c \"import os; os.chmod('.git/hooks/pre-commit', 0o644)\"", "python3 writes .git/hooks/pre-commit"],
  ["node -e \"require('fs').chmodSync('.git/hooks/pre-commit', 0o644)\"", "node writes .git/hooks/pre-commit"],
  ["python3 -c \"import os; os.rename('.git/hooks/pre-commit', 'x')\"", "python3 writes .git/hooks/pre-commit"],
  ["perl -e 'open my $f, \">.git/config\"; print $f 1'", "perl writes .git/config"],
  // Code handed nothing builds its words from its own constants: -n among them, maybe.
  ["python3 -c 'import subprocess; subprocess.run([\"git\",\"commit\",\"-\"+chr(110)])'", "an argument built at run time"],
  ["python3 -c 'import subprocess as s,base64; s.run([\"git\",\"commit\",base64.b64decode(\"LW4=\").decode()])'", "an argument built at run time"],
  ["node -e 'require(\"child_process\").spawnSync(\"git\",[\"commit\",String.fromCharCode(45,110),\"-m\",\"x\"])'", "an argument built at run time"],
  ["node -e 'require(\"child_process\").execSync(`git commit -${\"n\"} -m x`)'", "an argument built at run time"],
  ["perl -e 'system(\"git commit -\".chr(110).\" -m x\")'", "an argument built at run time"],
  ["sh -c 'exec \"$0\" \"$@\"' git commit -n", "git commit -n"],
  // A script piped in that no reader can tell.
  ['echo "git commit -n" | sed p | bash', "pipes text Tama cannot read (what sed prints) into bash"],
  ["python3 gen.py | sh", "pipes text Tama cannot read (what python3 prints) into sh"],
  ["gen | node", "pipes text Tama cannot read"],
  // git started by the loader, under another argv0, a hashed path, a glob.
  ["/lib64/ld-linux-x86-64.so.2 /usr/bin/git commit -n -m x", "git commit -n"],
  ["(exec -a git-commit git -n -m x)", "git commit -n"],
  ["hash -p /usr/bin/git h; h commit -n", "git commit -n"],
  ["/usr/bin/g[i]t commit -n", "git commit -n"],
  // Text reaching a shell through tee, dd, a list, a redirect's or an output's substitution, BASH_ENV, a group.
  [`echo 'git commit -n' | bash -c "$(tee)"`, "git commit -n"],
  ["echo 'git commit -n' | bash <(dd status=none)", "git commit -n"],
  ["echo 'git commit -n' | bash <(echo; cat)", "git commit -n"],
  ["bash < <(echo 'git commit -n')", "git commit -n"],
  ["echo 'git commit -n' > >(bash)", "git commit -n"],
  ["echo 'git commit -n' | BASH_ENV=/dev/stdin bash -c :", "git commit -n"],
  ["echo 'git commit -n' | { cat > /dev/null; bash; }", "git commit -n"],
  [`python3 gen.py | eval "$(cat)"`, "pipes text Tama cannot read"],
  ["read -r x < <(echo 'git commit -n'); $x", "git commit -n"],
  ["xargs -a <(echo commit --no-verify -m x) git", "git commit --no-verify"],
  ["sh -c '$1' _ 'git commit --no-verify -m x'", "git commit --no-verify"],
  ["f() { $1; }; f 'git commit -n'", "git commit -n"],
  // A program's output run as commands, which no reader can tell.
  [`eval "$(python3 gen.py)"`, "runs what `python3 gen.py` prints as commands"],
  [`bash -c "$(node gen.js)"`, "runs what `node gen.js` prints as commands"],
  ["source <(./gen)", "runs what `./gen` prints as commands"],
  ["bash <(python3 gen.py)", "runs what `python3 gen.py` prints as commands"],
  ["$(python3 gen.py)", "runs what `python3 gen.py` prints as commands"],
  // Named like a setup tool, but a function, an alias or a file of the agent's.
  ['pyenv() { echo git commit -n; }; eval "$(pyenv init -)"', "runs what `pyenv init -` prints as commands"],
  [`alias pyenv='python3 gen.py'; eval "$(pyenv init -)"`, "runs what `pyenv init -` prints as commands"],
  ["pyenv() { echo git commit -n; }; pyenv init - | source /dev/stdin", "pipes text Tama cannot read (what pyenv prints) into source"],
  ["echo 'git commit -n' | git -c alias.x='!bash' x", "git commit -n"],
  // git's own programs by path, the config editor, and plumbing that commits with no hook.
  ['"$(git --exec-path)/git-commit" -n -m x', "git commit -n (--no-verify)"],
  ["/usr/lib/git-core/git-commit --no-verify -m x", "git commit --no-verify"],
  ["GIT_EDITOR='tee -a' git config --edit <<< x", "git config --edit changes git's config in an editor"],
  ["git commit-tree HEAD^{tree} -p HEAD -m x", "git commit-tree makes a commit without running"],
  ['git commit -nm "x"', "git commit -n (--no-verify)"],
  ['git commit -anm "fix things"', "git commit -n (--no-verify)"],
  ["git commit -m 'msg' --no-verif", "git commit --no-verif (--no-verify)"],
  ["git commit --amend --no-edit --no-verify", "git commit --no-verify"],
  ["git commit --amend --no-post-rewrite", "git commit --no-post-rewrite skips the repository's post-rewrite hook"],
  ["git push --no-verify origin main", "git push --no-verify skips the repository's pre-push hook"],
  ["git push -f --no-verify", "git push --no-verify"],
  ["git merge --no-verify feature", "git merge --no-verify skips the repository's pre-merge-commit and commit-msg hooks"],
  ["git pull --no-verify --rebase=false", "git pull --no-verify"],
  ["git rebase --no-verify main", "git rebase --no-verify skips the repository's pre-rebase hook"],
  ["git am --no-verify 0001-fix.patch", "git am --no-verify skips the repository's pre-applypatch and applypatch-msg hooks"],
  ["git am -n 0001-fix.patch", "git am -n (--no-verify)"],
  ["git -C ../repo commit --no-verify -m x", "git commit --no-verify"],
  ["git --git-dir=.git --work-tree . commit -n -m x", "git commit -n (--no-verify)"],
  ["git --no-pager -c user.name=x commit -n", "git commit -n (--no-verify)"],
  ["git -c core.hooksPath=/dev/null commit -m x", "git -c core.hooksPath=/dev/null points git at another hooks directory"],
  ["git -c Core.HooksPath= push", "git -c Core.HooksPath= points git at another hooks directory"],
  ["git --config-env=core.hooksPath=EMPTY commit -m x", "git --config-env=core.hooksPath=EMPTY points git"],
  ["git --config-env core.hooksPath=EMPTY commit -m x", "git --config-env core.hooksPath=EMPTY points git"],
  ["git config core.hooksPath /dev/null", "git config core.hooksPath /dev/null changes which hooks git runs"],
  ["git config --global core.hooksPath ~/empty-hooks", "git config --global core.hooksPath"],
  ["git config --unset core.hooksPath", "git config --unset core.hooksPath changes which hooks git runs"],
  ["git config set core.hooksPath x", "git config set core.hooksPath x changes"],
  ["HUSKY=0 git commit -m wip", "HUSKY=0 turns husky's git hooks off; run git without it and fix what the hooks report"],
  ["HUSKY_SKIP_HOOKS=1 git push", "HUSKY_SKIP_HOOKS=1 turns husky's git hooks off"],
  ["SKIP=eslint,prettier git commit -m x", "SKIP=eslint,prettier skips the named pre-commit (or overcommit) hooks"],
  ["LEFTHOOK=0 git commit -m x", "LEFTHOOK=0 turns lefthook's git hooks off"],
  ["LEFTHOOK=false git push", "LEFTHOOK=false turns lefthook's git hooks off"],
  ["LEFTHOOK_EXCLUDE=lint git commit -m x", "LEFTHOOK_EXCLUDE=lint skips lefthook's hooks"],
  ["OVERCOMMIT_DISABLE=1 git commit -m x", "OVERCOMMIT_DISABLE=1 turns overcommit's git hooks off"],
  ["SKIP_SIMPLE_GIT_HOOKS=1 git commit -m x", "SKIP_SIMPLE_GIT_HOOKS=1 turns simple-git-hooks off"],
  ["GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null git commit", "GIT_CONFIG_KEY_0=core.hooksPath sets core.hooksPath"],
  ["env HUSKY=0 git commit -m x", "HUSKY=0 turns husky's git hooks off"],
  ["env -i PATH=/usr/bin HUSKY=0 /usr/bin/git commit -m x", "HUSKY=0"],
  ["sudo -u dev HUSKY=0 git push", "HUSKY=0"],
  ["export HUSKY=0", "export HUSKY=0 turns husky's git hooks off for every later git command"],
  ["export HUSKY=0 && git commit -m x", "export HUSKY=0"],
  ["declare -x SKIP=mypy", "declare SKIP=mypy"],
  ["bash -c 'git commit --no-verify -m x'", "git commit --no-verify"],
  ["sh -c \"git push --no-verify\"", "git push --no-verify"],
  ["bash -lc 'cd repo && git commit -n -m x'", "git commit -n (--no-verify)"],
  ["bash -c \"sh -c 'git commit -n'\"", "git commit -n (--no-verify)"],
  ["npm test && git commit --no-verify -m x", "git commit --no-verify"],
  ["npm test; git commit -n", "git commit -n (--no-verify)"],
  ["npm test || git commit -n", "git commit -n (--no-verify)"],
  ["yes | git commit -n", "git commit -n (--no-verify)"],
  ["npm test & git push --no-verify", "git push --no-verify"],
  ["npm test\ngit commit --no-verify -m x", "git commit --no-verify"],
  ["echo $(git commit --no-verify -m x)", "git commit --no-verify"],
  ['echo "done: $(git commit -n -m x)"', "git commit -n (--no-verify)"],
  ["echo `git push --no-verify`", "git push --no-verify"],
  ["(cd sub && git commit -n -m x)", "git commit -n (--no-verify)"],
  ["{ git add -A; git commit -n -m x; }", "git commit -n (--no-verify)"],
  ["if true; then git commit -n -m x; fi", "git commit -n (--no-verify)"],
  ["for f in a b; do git commit -n -m $f; done", "git commit -n (--no-verify)"],
  ["timeout 60 git push --no-verify", "git push --no-verify"],
  ["command git commit -n", "git commit -n (--no-verify)"],
  ["nohup git push --no-verify >/dev/null 2>&1 &", "git push --no-verify"],
  ["eval \"git commit --no-verify -m x\"", "git commit --no-verify"],
  ["bash <<'EOF'\ngit commit --no-verify -m x\nEOF", "git commit --no-verify"],
  ["bash <<< 'git push --no-verify'", "git push --no-verify"],
  ["g\\it commit --no-verify", "git commit --no-verify"],
  ["git commit -m 'x' --no-verify --verify --no-verify", "git commit --no-verify"],
  ["git commit -m \"$(cat msg.txt)\" -n", "git commit -n (--no-verify)"],
  ["git rebase -x 'git commit --amend --no-edit --no-verify' main", "git commit --no-verify"],
  ["git config core.hooksPath ''", "git config core.hooksPath '' changes which hooks git runs"],
  ["echo x > >(git commit -n)", "git commit -n (--no-verify)"],
  ["git commit -m \"$(cat <<'EOF'\nfeat: x\nEOF\n)\" --no-verify", "git commit --no-verify"],
  // env splits -S strings itself
  ["env -S 'git commit --no-verify -m x'", "git commit --no-verify"],
  ["env -S\"git push --no-verify\"", "git push --no-verify"],
  ["env --split-string='HUSKY=0 git commit -m x'", "HUSKY=0 turns husky's git hooks off"],
  ["env -i -S 'git commit -n'", "git commit -n (--no-verify)"],
  // git aliases defined on the command line
  ["git -c alias.ci='commit --no-verify' ci -m x", 'git ci is the alias "commit --no-verify": git commit --no-verify skips'],
  ["git -c alias.p='!git push --no-verify' p", "git push --no-verify"],
  ["git -c alias.a='-c core.hooksPath=/dev/null commit' a -m x", "core.hooksPath=/dev/null points git at another hooks directory"],
  ["git -c alias.x=y -c alias.y='commit -n' x", "git commit -n (--no-verify)"],
  ["GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.ci GIT_CONFIG_VALUE_0='commit -n' git ci", 'git ci is the alias "commit -n"'],
  // wrappers that run the rest of their arguments
  ["setsid git commit --no-verify -m x", "git commit --no-verify"],
  ["setsid -f git push --no-verify", "git push --no-verify"],
  ["find . -maxdepth 0 -exec git commit --no-verify -m x \\;", "git commit --no-verify"],
  ["find . -name x -execdir git commit -n {} +", "git commit -n (--no-verify)"],
  ["flock /tmp/lock git commit --no-verify -m x", "git commit --no-verify"],
  ["flock -w 5 /tmp/lock -c 'git push --no-verify'", "git push --no-verify"],
  ["ionice -c2 -n7 git commit -n", "git commit -n (--no-verify)"],
  ["ionice -c 3 git commit -n", "git commit -n (--no-verify)"],
  ["strace -f -o /dev/null git commit --no-verify -m x", "git commit --no-verify"],
  ["ltrace -o out git push --no-verify", "git push --no-verify"],
  ["watch -n 1 git commit --no-verify -m x", "git commit --no-verify"],
  ["watch 'git push --no-verify'", "git push --no-verify"],
  ["script -q -c 'git commit --no-verify -m x' /dev/null", "git commit --no-verify"],
  ["script --command='git push --no-verify' log", "git push --no-verify"],
  ["su -c 'git commit --no-verify -m x'", "git commit --no-verify"],
  ["su dev -c 'git push --no-verify'", "git push --no-verify"],
  ["runuser -u dev -- git commit -n", "git commit -n (--no-verify)"],
  ["runuser -l dev -c 'git commit -n'", "git commit -n (--no-verify)"],
  ["fish -c 'git commit --no-verify -m x'", "git commit --no-verify"],
  ["busybox sh -c 'git commit --no-verify -m x'", "git commit --no-verify"],
  ["busybox env HUSKY=0 git commit", "HUSKY=0"],
  ["unbuffer git commit --no-verify -m x", "git commit --no-verify"],
  ["chronic git push --no-verify", "git push --no-verify"],
  ["chronic -e git commit -n", "git commit -n (--no-verify)"],
  ["nice -n 10 git commit -n", "git commit -n (--no-verify)"],
  ["nice git push --no-verify", "git push --no-verify"],
  ["timeout -k 5 60 git commit -n", "git commit -n (--no-verify)"],
  ["xargs -n1 git commit --no-verify -m < list", "git commit --no-verify"],
  ["nohup git commit -n", "git commit -n (--no-verify)"],
  ["stdbuf -oL git push --no-verify", "git push --no-verify"],
  ["chroot / git commit -n", "git commit -n (--no-verify)"],
  ["chroot --userspec=dev:dev / git push --no-verify", "git push --no-verify"],
  ["doas -u dev git commit -n", "git commit -n (--no-verify)"],
  ["time git commit --no-verify -m x", "git commit --no-verify"],
  ["time -p git push --no-verify", "git push --no-verify"],
  ["command -p git commit -n", "git commit -n (--no-verify)"],
  ["exec git commit -n", "git commit -n (--no-verify)"],
  ["exec -a name git push --no-verify", "git push --no-verify"],
  ["builtin eval 'git commit -n'", "git commit -n (--no-verify)"],
  ["eval git commit -n", "git commit -n (--no-verify)"],
  ["zsh -c 'git commit -n'", "git commit -n (--no-verify)"],
  ["dash -c 'git push --no-verify'", "git push --no-verify"],
  ["bash --login -c 'git commit -n'", "git commit -n (--no-verify)"],
  ["taskset -c 0 git commit -n", "git commit -n (--no-verify)"],
  ["taskset 0x1 git push --no-verify", "git push --no-verify"],
  ["numactl --cpunodebind 0 git commit -n", "git commit -n (--no-verify)"],
  ["chrt -f 10 git commit -n", "git commit -n (--no-verify)"],
  ["sg dev -c 'git commit -n'", "git commit -n (--no-verify)"],
  ["sg dev git push --no-verify", "git push --no-verify"],
  ["pkexec --user dev git commit -n", "git commit -n (--no-verify)"],
  ["faketime '2020-01-01' git commit -n", "git commit -n (--no-verify)"],
  ["unshare -r git commit -n", "git commit -n (--no-verify)"],
  ["nsenter -t 1 git push --no-verify", "git push --no-verify"],
  ["systemd-run --user -p X=1 git commit -n", "git commit -n (--no-verify)"],
  ["dbus-run-session git commit -n", "git commit -n (--no-verify)"],
  ["ssh-agent git push --no-verify", "git push --no-verify"],
  ["gdb -batch -ex run --args git commit -n", "git commit -n (--no-verify)"],
  ["sudo nice setsid timeout 5 git commit -n", "git commit -n (--no-verify)"],
  ["run0 -u dev git commit -n", "git commit -n (--no-verify)"],
  ["firejail --quiet git push --no-verify", "git push --no-verify"],
  ["caffeinate -t 60 git commit -n", "git commit -n (--no-verify)"],
  ["find . -maxdepth 0 -ok git commit -n \\;", "git commit -n (--no-verify)"],
  ["find . -maxdepth 0 -okdir git push --no-verify \\;", "git push --no-verify"],
  ["ksh -c 'git commit -n'", "git commit -n (--no-verify)"],
  ["mksh -c 'git commit -n'", "git commit -n (--no-verify)"],
  ["ash -c 'git commit -n'", "git commit -n (--no-verify)"],
  ["yash -c 'git commit -n'", "git commit -n (--no-verify)"],
  ["posh -c 'git commit -n'", "git commit -n (--no-verify)"],
  ["tcsh -c 'git commit -n'", "git commit -n (--no-verify)"],
  ["csh -c 'git push --no-verify'", "git push --no-verify"],
  ["fish --command='git commit -n'", "git commit -n (--no-verify)"],
  ["sudo -u dev bash -c 'git commit -n'", "git commit -n (--no-verify)"],
  ["GIT_CONFIG_PARAMETERS=\"'alias.ci'='commit -n'\" git ci", 'git ci is the alias "commit -n"'],
  ["CI_ALIAS='commit -n' git --config-env alias.ci=CI_ALIAS ci", 'git ci is the alias "commit -n"'],
  // interpreters' inline code
  ["python3 -c \"import subprocess; subprocess.run('git commit --no-verify -m x', shell=True)\"", "git commit --no-verify"],
  ["python -c 'import os; os.system(\"git push --no-verify\")'", "git push --no-verify"],
  ["node -e \"require('child_process').execSync('git commit -n')\"", "git commit -n (--no-verify)"],
  ["bun -e 'await Bun.$`git push --no-verify`'", "git push --no-verify"],
  ["perl -e 'system(\"git commit --no-verify\")'", "git commit --no-verify"],
  ["ruby -e '`git commit -n`'", "git commit -n (--no-verify)"],
  ["ruby -e 'system(\"git push --no-verify\")'", "git push --no-verify"],
  ["php -r 'exec(\"git commit --no-verify\");'", "git commit --no-verify"],
  ["deno eval \"new Deno.Command('git', { args: ['commit', '-n'] }).spawn()\"", "git commit -n (--no-verify)"],
  ["deno eval \"Deno.run({ cmd: ['git', 'push', '--no-verify'] })\"", "git push --no-verify"],
  // Shell forms that hide the switch: escapes, braces, names and values built at run time, functions, aliases, xargs.
  ["git commit $'\\x2dn' -m x", "git commit -n (--no-verify)"],
  ["git commit {-n,-m,x}", "git commit -n (--no-verify)"],
  ["HUSKY=$(echo 0) git commit -m x", "(a value built at run time) may turn hooks off"],
  ["HUSKY=${X:-0} git commit -m x", "HUSKY=0 turns husky's git hooks off"],
  // A default the line gives a variable the environment does not set is what runs; `:=` keeps it for the commands after.
  ["git commit ${X:---no-verify}", "git commit --no-verify"],
  [": ${X:=--no-verify}; git commit $X", "git commit --no-verify"],
  ["git commit ${PATH:+--no-verify}", "git commit --no-verify"],
  // Positional parameters set, shifted and sliced.
  ["set -- commit --no-verify; git \"$@\"", "git commit --no-verify"],
  ["f() { shift; git \"$@\"; }; f x commit --no-verify", "git commit --no-verify"],
  ["f() { shift 2; git \"$@\"; }; f x y commit -n", "git commit -n"],
  ["f() { git \"${@:2}\"; }; f x commit --no-verify", "git commit --no-verify"],
  ["f() { set -- commit --no-verify; git \"$@\"; }; f", "git commit --no-verify"],
  ["printf -v HUSKY 0; export HUSKY; git commit -m x", "HUSKY=0"],
  ["read HUSKY <<< 0; export HUSKY; git commit -m x", "HUSKY=0"],
  ["GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=$(echo core.hooksPath) GIT_CONFIG_VALUE_0=/x git commit -m x", "GIT_CONFIG_KEY_0=$(echo core.hooksPath)"],
  ["$(echo git) commit -n -m x", "git commit -n (--no-verify)"],
  ["g=git; $g commit -n -m x", "git commit -n (--no-verify)"],
  ["f() { git \"$@\"; }; f commit -n -m x", "git commit -n (--no-verify)"],
  ["function c { git commit \"$1\" -m x; }\nc --no-verify", "git commit --no-verify"],
  ["shopt -s expand_aliases\nalias g='git commit -n'\ng -m x", "git commit -n (--no-verify)"],
  ["echo --no-verify | xargs git commit -m x", "git commit --no-verify"],
  ["xargs git push <<< --no-verify", "git push --no-verify"],
  ["printf '[core]\\n\\thooksPath = /tmp/h\\n' > /tmp/c; GIT_CONFIG_GLOBAL=/tmp/c git commit -m x", "names a config file this command writes"],
  ["git config include.path /tmp/evil.gitconfig", "git config include.path /tmp/evil.gitconfig changes which hooks git runs"],
  ["git -c alias.p='push --no-verify' p", "git push --no-verify"],
  ["printf '[core]\\n\\thooksPath = /dev/null\\n' >> .git/config", "printf writes .git/config, git's config"],
  ["sed -i '/hooksPath/d' .git/config", "edits in place .git/config, git's config"],
  ["rm -f .git/hooks/pre-commit", "removes .git/hooks/pre-commit, the repository's installed git hooks"],
  ["chmod -x .git/hooks/pre-push", "the repository's installed git hooks"],
  ["cd .git && mv hooks hooks.off", "the repository's installed git hooks"],
  ["git config --remove-section core", "drops core.hooksPath with the section"],
  // Scripts handed on by printing them: pipes, here-documents, process substitution, printed substitutions.
  ["echo ${x:-$(git commit -n)}", "git commit -n (--no-verify)"],
  ["echo 'git commit -n' | sh", "git commit -n (--no-verify)"],
  ["printf 'git commit --no-verify\\n' | bash", "git commit --no-verify"],
  ["cat <<EOF | bash\ngit commit -n\nEOF", "git commit -n (--no-verify)"],
  ["source /dev/stdin <<< 'git commit -n'", "git commit -n (--no-verify)"],
  [". <(echo 'git commit -n')", "git commit -n (--no-verify)"],
  ["bash <(printf 'git commit -n')", "git commit -n (--no-verify)"],
  ['sh -c "$(echo git commit -n)"', "git commit -n (--no-verify)"],
  ["$(echo git commit -n)", "git commit -n (--no-verify)"],
  ["`echo git` commit -n", "git commit -n (--no-verify)"],
  ["parallel ::: 'git commit -n'", "git commit -n (--no-verify)"],
  ["parallel git commit ::: -n", "git commit -n (--no-verify)"],
  ["at now <<< 'git commit -n'", "git commit -n (--no-verify)"],
  ["script -qc 'git commit -n' /dev/null", "git commit -n (--no-verify)"],
  // Deeper than the walker reads is refused, not passed: nine evals.
  ["eval eval eval eval eval eval eval eval eval eval git commit -n", "past what Tama reads; write the command out plainly"],
  // A function that calls itself, or two that call each other, are read once each.
  ["f() { f; f; git commit -n -m x; f; }; f", "git commit -n (--no-verify)"],
  ["a() { b; }; b() { a; git commit -n -m x; }; a", "git commit -n (--no-verify)"],
  ["g() { git \"$@\"; }; f() { g commit -n; }; f", "git commit -n (--no-verify)"],
  // A script the same command writes, then runs.
  ["echo 'git commit -n' > s.sh; sh s.sh", "git commit -n (--no-verify)"],
  ["printf 'git push --no-verify\\n' > /tmp/p.sh && chmod +x /tmp/p.sh && /tmp/p.sh", "git push --no-verify"],
  ["cat > s.sh <<'EOF'\ngit commit -n\nEOF\n. ./s.sh", "git commit -n (--no-verify)"],
  ["echo 'git commit -n' | tee s.sh >/dev/null; bash s.sh", "git commit -n (--no-verify)"],
  // Code that runs a command it computes runs what it is given: its arguments, and what is fed to its stdin.
  ["echo 'git commit -n -m x' | python3 -c 'import os,sys; os.system(sys.stdin.read())'", "git commit -n"],
  ["echo 'git commit -n' | perl -ne 'system $_'", "git commit -n"],
  ["echo 'git commit -n' | ruby -e 'system(STDIN.read)'", "git commit -n"],
  [`echo 'git commit -n' | node -e 'require("child_process").execSync(require("fs").readFileSync(0, "utf8"))'`, "git commit -n"],
  ["python3 -c 'import os,sys; os.system(sys.stdin.read())' <<< 'git commit -n'", "git commit -n"],
  ["python3 -c 'import os,sys; os.system(sys.argv[1])' 'git commit -n'", "git commit -n"],
  [`node -e 'require("child_process").execSync(process.argv[1])' 'git commit -n'`, "git commit -n"],
  [`python3 -c 'import subprocess,sys; subprocess.run(["bash", "-c", sys.argv[1]])' 'git commit -n'`, "git commit -n"],
  // A list with its literal words first: the words given stand where it goes on computed.
  [`python3 -c 'import subprocess,sys; subprocess.run(["git", "commit", sys.argv[1]])' -n`, "git commit -n"],
  [`python3 -c 'import subprocess,sys; subprocess.run(["git", "commit", *sys.argv[1:]])' -m x -n`, "git commit -n"],
  [`node -e 'require("child_process").execFileSync("git", ["commit", process.argv[1]])' -n`, "git commit -n"],
  [`printf -- '-n\\n' | python3 -c 'import subprocess,sys; subprocess.run(["git", "commit", sys.stdin.read().strip()])'`, "git commit -n"],
  // What code runs, computed from what it is given: joined, spread, concatenated, formatted, interpolated, renamed, run as code.
  ["python3 -c 'import os,sys; os.system(\" \".join(sys.argv[1:]))' git commit -n", "git commit -n"],
  ["python3 -c 'import subprocess,sys; subprocess.run(sys.argv[1:])' git commit -n", "git commit -n"],
  ["python3 -c 'import os,sys; os.execvp(sys.argv[1], sys.argv[1:])' git commit -n", "git commit -n"],
  ["python3 -c 'import os,sys; list(map(os.system, sys.argv[1:]))' 'git commit -n'", "git commit -n"],
  ["node -e 'require(\"child_process\").execSync(process.argv.slice(1).join(\" \"))' git commit -n", "git commit -n"],
  ["perl -e 'system(@ARGV)' git commit -n", "git commit -n"],
  ["ruby -e 'system(*ARGV)' git commit -n", "git commit -n"],
  ["php -r 'exec(implode(\" \", array_slice($argv, 1)));' git commit -n", "git commit -n"],
  ["python3 -c 'import os,sys; os.system(\"git commit \" + sys.argv[1])' -n", "git commit -n"],
  ["python3 -c 'import os,sys; os.system(sys.argv[1] + \" -n\")' 'git commit'", "git commit -n"],
  ["python3 -c 'import os,sys; os.system(sys.argv[1])' '-x; git commit -n'", "git commit -n"],
  ["python3 -c 'import os,sys; os.system(f\"git commit {sys.argv[1]}\")' -n", "git commit -n"],
  ["python3 -c 'import os,sys; os.system(\"git commit {}\".format(sys.argv[1]))' -n", "git commit -n"],
  ["python3 -c 'import os,sys; os.system(\"git commit %s\" % sys.argv[1])' -n", "git commit -n"],
  ["python3 -c 'import os; os.system(\"git commit -{}\".format(\"n\"))'", "git commit -n"],
  ["node -e 'require(\"child_process\").execSync(`git commit ${process.argv[1]}`)' -n", "git commit -n"],
  ["perl -e 'system \"git commit $ARGV[0]\"' -n", "git commit -n"],
  ["ruby -e 'system \"git commit #{ARGV[0]}\"' -n", "git commit -n"],
  ["perl -e 'print `$ARGV[0]`' 'git commit -n'", "git commit -n"],
  ["ruby -e 'puts %x{#{ARGV[0]}}' 'git commit -n'", "git commit -n"],
  ["php -r 'echo `$argv[1]`;' 'git commit -n'", "git commit -n"],
  ["perl -e 'open(F, \"$ARGV[0] |\"); print <F>' 'git commit -n'", "git commit -n"],
  ["perl -e 'open(my $f, \"-|\", @ARGV)' git commit -n", "git commit -n"],
  ["python3 -c 'import subprocess,sys; subprocess.run([\"git\"] + sys.argv[1:])' commit -n", "git commit -n"],
  ["node -e 'require(\"child_process\").spawnSync(\"git\", process.argv.slice(1))' commit -n", "git commit -n"],
  ["perl -e 'system(\"git\", @ARGV)' commit -n", "git commit -n"],
  ["ruby -e 'system(\"git\", *ARGV)' commit -n", "git commit -n"],
  ["deno eval 'new Deno.Command(\"git\", { args: Deno.args }).outputSync()' commit -n", "git commit -n"],
  ["python3 -c 'import os,sys; os.execlp(\"git\", \"git\", \"commit\", sys.argv[1])' -n", "git commit -n"],
  ["python3 -c 'import subprocess,sys; subprocess.run([\"git\", sys.argv[1], \"-n\"])' commit", "git commit -n"],
  ["python3 -c 'import subprocess,sys; subprocess.run([\"git\", \"commit\", \"-\" + sys.argv[1]])' n", "git commit -n"],
  ["X='git commit -n' python3 -c 'import os; os.system(os.environ[\"X\"])'", "git commit -n"],
  ["python3 -c 'import os; os.system(open(0).read())' <<< 'git commit -n'", "git commit -n"],
  ["lua -e 'os.execute(io.read(\"a\"))' <<< 'git commit -n'", "git commit -n"],
  ["node -e 'const { execSync: r } = require(\"child_process\"); r(process.argv[1])' 'git commit -n'", "git commit -n"],
  ["python3 -c 'import os,sys; getattr(os, \"system\")(sys.argv[1])' 'git commit -n'", "git commit -n"],
  ["ruby -e 'require \"open3\"; Open3.capture2(ARGV[0])' 'git commit -n'", "git commit -n"],
  ["python3 -c 'import sys; exec(sys.argv[1])' 'import os; os.system(\"git commit -n\")'", "git commit -n"],
  ["node -e 'eval(process.argv[1])' 'require(\"child_process\").execSync(\"git commit -n\")'", "git commit -n"],
  ["python3 '-cimport os,sys; os.system(sys.argv[1])' 'git commit -n'", "git commit -n"],
  ["python3 - 'git commit -n' <<< 'import os,sys; os.system(sys.argv[1])'", "git commit -n"],
  ["node '--eval=require(\"child_process\").execSync(process.argv[1])' 'git commit -n'", "git commit -n"],
  ["node -e 'require(\"child_process\").execFileSync(\"git\", [\"commit\", process.argv[1]])' -- -n", "git commit -n"],
  ["printf -- '-n' > flag; python3 -c 'import subprocess; subprocess.run([\"git\", \"commit\", open(\"flag\").read()])'", "git commit -n"],
  // A positional parameter inside a quoted word that goes on (`"$1/x"`) leaves the quoting of the rest as it was.
  ['f() { echo "$1/x"; git commit "$2"; }; f a -n', "git commit -n"],
  // The code's own values, escapes and joins fill what it computes; code it runs as code; Perl's open3.
  ["python3 -c 'import os; x=\"-n\"; os.system(\"git commit \" + x)'", "git commit -n"],
  ["python3 -c 'import subprocess; a=[\"commit\",\"-n\"]; subprocess.run([\"git\"]+a)'", "git commit -n"],
  ["node -e 'const f=\"-n\"; require(\"child_process\").execSync(\"git commit \" + f)'", "git commit -n"],
  ["perl -e 'my $f=\"-n\"; system(\"git commit $f\")'", "git commit -n"],
  ["python3 -c 'import os; os.system(\"git commit -\\x6e\")'", "git commit -n"],
  ["node -e 'require(\"child_process\").execSync(\"git commit -\\u006e\")'", "git commit -n"],
  ["perl -e 'system(\"git commit -\\156\")'", "git commit -n"],
  ["python3 -c 'import os,sys; os.system(\"git commit \" + sys.argv[1] + sys.argv[2])' - n", "git commit -n"],
  ["perl -e 'system \"git commit -\" . shift' n", "git commit -n"],
  ["python3 -c 'exec(\"import os; os.system(\\\"git commit -n\\\")\")'", "git commit -n"],
  ["perl -e 'use IPC::Open3; open3(my $i, my $o, undef, \"git commit -n\")'", "git commit -n"],
  // Perl's quote-like forms and Ruby's percent literals.
  ["perl -e 'system qw(git commit -n)'", "git commit -n"],
  ["perl -e 'print qx(git commit -n)'", "git commit -n"],
  ["perl -e 'system(q(git commit -n))'", "git commit -n"],
  ["perl -e 'my $c = qq{git commit -n}; system $c'", "git commit -n"],
  ["ruby -e 'system(*%w(git commit -n))'", "git commit -n"],
  ["ruby -e 'puts %x(git commit -n)'", "git commit -n"],
  // Other interpreters' inline code.
  ["guile -c '(system \"git commit -n\")'", "git commit -n"],
  ["racket -e '(system \"git commit -n\")'", "git commit -n"],
  ["elixir -e 'System.shell(\"git commit -n\")'", "git commit -n"],
  ["elixir -e 'System.cmd(\"git\", [\"commit\", \"-n\"])'", "git commit -n"],
  ["erl -noshell -eval 'os:cmd(\"git commit -n\").'", "git commit -n"],
  ["ipython -c 'import os; os.system(\"git commit -n\")'", "git commit -n"],
  // awk: an operand's assignment, ENVIRON, and a string of the program before what it is given.
  ["awk 'BEGIN{system(c)}' c='git commit -n'", "git commit -n"],
  ["X='git commit -n' awk 'BEGIN{system(ENVIRON[\"X\"])}'", "git commit -n"],
  ["awk 'BEGIN{system(\"git commit \" ARGV[1])}' -n", "git commit -n"],
  // A name no directory the walker can look in holds, under a PATH with a directory built at run time: an unknown binary there.
  ['PATH=$(python3 -c "print(1)"):$PATH g commit -n -m x', "git commit -n"],
  ["export PATH=$(go env GOPATH)/bin:$PATH; gopls version; g commit --no-verify", "git commit --no-verify"],
  // Fed text no reader can tell (a program's output, a download): what it builds runs unread.
  ["./gen | python3 -c 'import os,sys; os.system(sys.stdin.read())'", "whose code runs commands it builds from what it reads"],
  ["./gen | perl -ne 'system $_'", "whose code runs commands it builds from what it reads"],
  ["curl -s https://example.com/c | python3 -c 'import os,sys; os.system(sys.stdin.read())'", "what curl prints"],
];

/** Command lines the gate lets through: nothing here skips a hook. */
const PASSED: string[] = [
  "git log -n 5",
  'echo "git commit -m wip" | bash -c "$(cat)"',
  "git diff --name-only | xargs -I{} git add {}",
  "cat missing.sh | bash",
  "cat notes.md | bash -n",
  "git log | less",
  "cat data.json | python3 -m json.tool",
  // Text piped into a shell is read as a script, expansions and all.
  "cat <<'EOF' | bash\necho $PORT\nEOF",
  "echo 'for f in *.ts; do echo $f; done' | bash",
  "git log | node --test",
  'ls | "$(command -v wc)" -l',
  // A shell setup tool's own output.
  'eval "$(pyenv init -)"',
  'eval "$(ssh-agent -s)"',
  "source <(kubectl completion bash)",
  "kubectl completion bash | source /dev/stdin",
  'eval "$(/home/linuxbrew/.linuxbrew/bin/brew shellenv)"',
  "$(npm bin)/tsc -p .",
  "diff <(ls a) <(ls b)",
  'echo "commit -m wip" | xargs -d "\\n" -I{} sh -c "git {}"',
  "git log -n5 --oneline",
  "git show -n1",
  "git commit -m \"mention --no-verify in message\"",
  "git commit -m 'do not use -n here'",
  "git commit -m --no-verify",
  "git commit --message --no-verify",
  "git commit -mnothing",
  "git commit -F -n",
  "echo \"git commit --no-verify\"",
  "echo git commit --no-verify",
  "printf '%s\\n' 'HUSKY=0 git commit'",
  "grep -n foo src/index.ts",
  "grep -rn -- --no-verify docs/",
  "git commit --amend",
  "git commit --amend --no-edit",
  "git commit -am 'fix'",
  "git commit -v -m x",
  "git push -n origin main",
  "git push --dry-run",
  "git push --force-with-lease origin HEAD",
  "git merge -n feature",
  "git pull -n",
  "git rebase -n main",
  "git rebase --verify main",
  "git cherry-pick -n abc123",
  "git revert -n HEAD",
  "git commit -- -n",
  "git commit -m x # --no-verify",
  "git config --get core.hooksPath",
  "git config core.hooksPath",
  "git config get core.hooksPath",
  "git config --list",
  "git config user.name dev",
  "git -c user.email=a@b commit -m x",
  "HUSKY=0 npm ci",
  "HUSKY=1 git commit -m x",
  "LEFTHOOK=1 git commit -m x",
  "SKIP= git commit -m x",
  "PRE_COMMIT_ALLOW_NO_CONFIG=1 git commit -m x",
  "SKIP=flake8 pre-commit run --all-files",
  "export PATH=$PATH:/opt/bin",
  "cat <<'EOF' > notes.md\ngit commit --no-verify\nEOF",
  "bash scripts/release.sh --no-verify",
  "command -v git",
  "\"HUSKY=0\" git commit",
  "gitk --all",
  "git status && git diff -n",
  "npm run lint -- --no-verify",
  "git commit -m \"$(cat <<'EOF'\nfeat: x\n\nnever use --no-verify\nEOF\n)\"",
  "git rebase -x 'npm test' main",
  "git commit -S -m 'signed'",
  // look-alikes of the forms above
  "env -S 'git log -n 5'",
  "env -S 'echo git commit --no-verify'",
  "git -c alias.ci=commit ci -m x",
  "git -c alias.l='log -n 5' l",
  "git -c alias.status='commit -n' status",
  "setsid git log -n 5",
  "find . -name '*.ts' -exec grep -n TODO {} \\;",
  "find . -name --no-verify",
  "flock /tmp/lock -c 'git log -n 5'",
  "ionice -p 1234",
  "strace -o trace.txt git status",
  "watch -n 5 git log -n 5",
  "script -c 'echo \"git commit --no-verify\"' /dev/null",
  "su -c 'git log -n 5'",
  "fish -c 'echo git commit --no-verify'",
  "busybox sh -c 'git status'",
  "unbuffer git log -n 5",
  "chronic git fetch",
  "nice -n 5 git log -n 5",
  "taskset -p 1234",
  "sg dev git log -n 5",
  "python3 -c \"print('git commit --no-verify')\"",
  "python3 -c \"import subprocess; subprocess.run(['git', 'log', '-n', '5'])\"",
  // Code that runs what it computes, given something harmless; code that starts no process, fed unread text.
  "echo ls | python3 -c 'import os,sys; os.system(sys.stdin.read())'",
  'PATH=$(python3 -c "print(1)"):$PATH g status',
  // What the code is given, in place of what it computes, makes an ordinary command.
  `python3 -c 'import sys,subprocess; subprocess.run(["git","commit","-m",sys.stdin.read()])' <<< 'Make grep -n work on Windows'`,
  `python3 -c 'import sys,subprocess; subprocess.run(["rm","-rf",sys.argv[1]])' build`,
  `python3 -c 'import json; d = {"cmd": 1}; print(d["cmd"])'`,
  `python3 -c 'import subprocess; m="fix -n"; subprocess.run(["git","commit","-m",m])'`,
  'eval "$(direnv hook bash)"',
  "perl -e 'my %h = (q => 1); print $h{q}'",
  "ruby -e 'puts 10 % 3'",
  `python3 -c 'import subprocess,sys; subprocess.run(["git","commit","-m",sys.argv[1]])' 'fix -n'`,
  `awk 'BEGIN{system("wc -l " ARGV[1])}' notes.txt`,
  `python3 -c 'import sys,subprocess; subprocess.run(["git","push","origin",sys.argv[1]])' feature/x`,
  `git diff --name-only | python3 -c 'import sys,subprocess; subprocess.run(["black", *sys.stdin.read().split()])'`,
  "PATH=$(go env GOPATH)/bin:$PATH npm install",
  "PATH=$(go env GOPATH)/bin:$PATH cd src",
  "python3 -c 'import os,sys; os.system(sys.argv[1])' 'ls -la'",
  "./gen | python3 -c 'import sys, json; print(json.load(sys.stdin))'",
  "perl -e '$c=<STDIN>; system($c)' < /dev/null",
  `git diff --name-only | python3 -c 'import sys,subprocess; [subprocess.run(["black", f.strip()]) for f in sys.stdin]'`,
  `python3 -c 'import subprocess,sys; subprocess.run(["git", "status", sys.argv[1]])' --short`,
  "node -e \"console.log('git commit -n')\"",
  "python3 script.py",
  "git ls-files -z | xargs -0 git add",
  "$EDITOR -n notes.txt",
  "for f in a b; do git add \"$f\"; done",
  "git commit -m \"$(cat msg.txt)\"",
  "echo '{a,-n}'",
  "cat .git/config",
  "ls .git/hooks",
  "echo x > .github/config",
  "echo \"git commit -n is bad\"",
  "printf 'a\\n' | sh -c 'cat'",
  "git config --remove-section alias",
  // Run-time text git reads as a value, a path after `--`, a ref, or a variable of the person's environment.
  'git commit -m "$(cat msg.txt)"',
  'git commit --message="$(./gen)" --date="$(date -R)"',
  "git commit -m x -- $(./gen)",
  'git push origin "$(git branch --show-current)"',
  "git push -u origin $(git rev-parse --abbrev-ref HEAD)",
  'git rebase -i "$(git merge-base HEAD main)"',
  'git merge --ff-only "origin/$(git branch --show-current)"',
  'git merge "$BRANCH"',
  'git "$@"',
  "PATH=/usr/local/bin:$PATH git commit -m x",
  "PATH=$PATH:./bin git commit -m x",
  "PATH=./bin:$PATH make",
  "GIT_SEQUENCE_EDITOR=: git rebase -i --autosquash main",
  "git pull origin main",
  "git show :/fix",
  "ENV=production npm start",
  'a=(x y); echo "${a[@]}"',
  'export PATH="$PWD/node_modules/.bin:$PATH" && git commit -m x',
  "git stash",
  "git stash pop",
  "git stash apply stash@{1}",
  "git stash show -p stash@{0}",
  "git diff stash@{0}",
  "git checkout stash@{0} -- file.txt",
  "git stash branch newb stash@{0}",
  "git am --abort",
  "git cherry-pick abc123",
  "git hash-object -w file.txt",
  "git --git-dir=../other/.git log",
  "git config --rename-section alias aliases",
  "ln -s ../shared/config.yml config.yml",
  "ls .git/",
  "cp .git/config /tmp/backup",
  "perl -e 'open F, \"<\", \"x.txt\"; print <F>'",
  "python3 -c 'import subprocess,sys; subprocess.run([\"git\",\"commit\",\"-m\",sys.argv[1]])' 'fix -n'",
];

function bashCall(command: string): HookInput {
  return { hook_event_name: "PreToolUse", cwd: "/repo", tool_name: "Bash", tool_input: { command } };
}

describe("block-git-hook-bypass", () => {
  it.each(REFUSED)("refuses %j", async (command, reason) => {
    const verdict = await blockGitHookBypass.evaluate(bashCall(command), { tamaHome: "/tmp/tama" });
    expect(verdict).toMatchObject({ decision: "block" });
    expect(verdict.decision === "block" ? verdict.reason : "").toContain(reason);
  });

  it.each(PASSED)("lets %j through", (command) => {
    expect(findGitHookBypass(command)).toBeUndefined();
    expect(blockGitHookBypass.evaluate(bashCall(command), { tamaHome: "/tmp/tama" })).toEqual({ decision: "pass" });
  });

  it("has a table of at least 40 real command lines", () => {
    expect(REFUSED.length + PASSED.length).toBeGreaterThanOrEqual(40);
  });

  it("reads OMP's spelling of the call first", () => {
    const input: HookInput = {
      hook_event_name: "PreToolUse",
      cwd: "/repo",
      tool_name: "Bash",
      tool_input: {},
      omp: { tool_name: "bash", tool_input: { command: "git commit -n" } },
    };
    expect(blockGitHookBypass.evaluate(input, { tamaHome: "/tmp/tama" })).toMatchObject({ decision: "block" });
  });

  it("asks the tool declaration, so any shell spelling counts and other tools pass", () => {
    const command = "git push --no-verify";
    for (const tool_name of ["exec_command", "functions.shell", "run_command"]) {
      const input: HookInput = { hook_event_name: "PreToolUse", cwd: "/", tool_name, tool_input: { cmd: command } };
      expect(blockGitHookBypass.evaluate(input, { tamaHome: "/" })).toMatchObject({ decision: "block" });
    }
    const write: HookInput = { hook_event_name: "PreToolUse", cwd: "/", tool_name: "Write", tool_input: { command } };
    expect(blockGitHookBypass.evaluate(write, { tamaHome: "/" })).toEqual({ decision: "pass" });
  });

  it("reads argv-array commands", () => {
    const input: HookInput = { hook_event_name: "PreToolUse", cwd: "/", tool_name: "exec_command", tool_input: { command: ["git", "commit", "-n"] } };
    expect(blockGitHookBypass.evaluate(input, { tamaHome: "/" })).toMatchObject({ decision: "block" });
  });

  it("reads only pre_tool_use", () => {
    expect(blockGitHookBypass.events).toEqual(["pre_tool_use"]);
  });
});

describe("block-git-hook-bypass under a call's own environment and directory", () => {
  const gate = (input: Partial<HookInput>) => blockGitHookBypass.evaluate({ hook_event_name: "PreToolUse", cwd: "/repo", ...input }, { tamaHome: "/" });

  it("reads OMP's bash env: GIT_CONFIG_* naming core.hooksPath, HUSKY=0", () => {
    const env = { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "core.hooksPath", GIT_CONFIG_VALUE_0: "/dev/null" };
    expect(gate({ tool_name: "Bash", tool_input: { command: "git commit -m x", env } })).toMatchObject({ decision: "block", reason: expect.stringContaining("core.hooksPath") });
    expect(gate({ tool_name: "bash", tool_input: { command: "git push", env: { HUSKY: "0" } } })).toMatchObject({ decision: "block", reason: expect.stringContaining("HUSKY=0") });
    expect(gate({ tool_name: "bash", tool_input: { command: "git ci", env: { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "alias.ci", GIT_CONFIG_VALUE_0: "commit -n" } } })).toMatchObject({ decision: "block" });
    // the same environment for a command that is not git, or an unrelated setting, passes
    expect(gate({ tool_name: "bash", tool_input: { command: "npm ci", env: { HUSKY: "0" } } })).toEqual({ decision: "pass" });
    expect(gate({ tool_name: "bash", tool_input: { command: "git commit -m x", env: { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "user.name", GIT_CONFIG_VALUE_0: "x" } } })).toEqual({ decision: "pass" });
  });

  it("reads aliases from the repository's own config, found from the call's cwd, and config files the env names", () => {
    const repo = mkdtempSync(path.join(tmpdir(), "tama-git-"));
    try {
      mkdirSync(path.join(repo, ".git"));
      mkdirSync(path.join(repo, "sub"));
      writeFileSync(path.join(repo, ".git", "config"), '[core]\n\tbare = false\n[alias]\n\tci = commit --no-verify\n\tsafe = "log -n 5" ; a comment\n\tsh = !git push --no-verify\n');
      writeFileSync(path.join(repo, "evil.gitconfig"), "[core]\n\thooksPath = /dev/null\n");
      expect(gate({ cwd: path.join(repo, "sub"), tool_name: "Bash", tool_input: { command: "git ci -m x" } })).toMatchObject({ decision: "block", reason: expect.stringContaining('git ci is the alias "commit --no-verify"') });
      expect(gate({ cwd: repo, tool_name: "Bash", tool_input: { command: "git sh" } })).toMatchObject({ decision: "block" });
      expect(gate({ cwd: "/", tool_name: "Bash", tool_input: { command: `git -C ${repo} ci -m x` } })).toMatchObject({ decision: "block" });
      expect(gate({ cwd: repo, tool_name: "Bash", tool_input: { command: "git safe" } })).toEqual({ decision: "pass" });
      expect(gate({ cwd: tmpdir(), tool_name: "Bash", tool_input: { command: "git ci -m x" } })).toEqual({ decision: "pass" });
      expect(gate({ cwd: repo, tool_name: "Bash", tool_input: { command: "GIT_CONFIG_GLOBAL=evil.gitconfig git commit -m x" } })).toMatchObject({ decision: "block", reason: expect.stringContaining("GIT_CONFIG_GLOBAL=evil.gitconfig names a config file that sets core.hooksPath") });
      expect(gate({ cwd: repo, tool_name: "Bash", tool_input: { command: "GIT_CONFIG_GLOBAL=/nonexistent git commit -m x" } })).toEqual({ decision: "pass" });
      // A config file named for git that includes another setting core.hooksPath (read as git reads it), and another HOME's .gitconfig doing so.
      writeFileSync(path.join(repo, "gcfg"), "[include]\n\tpath = evil.gitconfig\n");
      writeFileSync(path.join(repo, ".gitconfig"), '[includeIf "onbranch:topic"]\n\tpath = evil.gitconfig\n');
      expect(gate({ cwd: repo, tool_name: "Bash", tool_input: { command: "GIT_CONFIG_GLOBAL=gcfg git commit -m x" } })).toMatchObject({ decision: "block", reason: expect.stringContaining("GIT_CONFIG_GLOBAL=gcfg names a config file that sets core.hooksPath") });
      expect(gate({ cwd: repo, tool_name: "Bash", tool_input: { command: "HOME=. git commit -m x" } })).toMatchObject({ decision: "block", reason: expect.stringContaining("HOME=. names a config file that sets core.hooksPath") });
      // git takes two section headers on one line; the last holds the setting.
      writeFileSync(path.join(repo, "two.cfg"), "[foo][core]hooksPath = /dev/null\n");
      expect(gate({ cwd: repo, tool_name: "Bash", tool_input: { command: "GIT_CONFIG_GLOBAL=two.cfg git commit -m x" } })).toMatchObject({ decision: "block", reason: expect.stringContaining("sets core.hooksPath") });
      // Past what Tama reads of a file, git reads on.
      writeFileSync(path.join(repo, "big.cfg"), `${"#".repeat(17 * 1024 * 1024)}\n[core]\n\thooksPath = /dev/null\n`);
      expect(gate({ cwd: repo, tool_name: "Bash", tool_input: { command: "GIT_CONFIG_GLOBAL=big.cfg git commit -m x" } })).toMatchObject({ decision: "block", reason: expect.stringContaining("larger than Tama reads") });
      // An included file is read as git reads it; after `cd` the repository is the new directory's.
      expect(gate({ cwd: repo, tool_name: "Bash", tool_input: { command: "git -c include.path=evil.gitconfig commit -m x" } })).toMatchObject({ decision: "block", reason: expect.stringContaining("includes a config file that sets core.hooksPath") });
      expect(gate({ cwd: repo, tool_name: "Bash", tool_input: { command: "git -c include.path=/nonexistent commit -m x" } })).toEqual({ decision: "pass" });
      expect(gate({ cwd: "/", tool_name: "Bash", tool_input: { command: `cd ${repo}/sub && git ci -m x` } })).toMatchObject({ decision: "block" });
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it("reads aliases from the files the repository's config includes and from its worktree's config.worktree", () => {
    const repo = mkdtempSync(path.join(tmpdir(), "tama-git-"));
    try {
      execFileSync("git", ["init", "-q", repo]);
      // A project file the repository's config includes: one the agent can write.
      execFileSync("git", ["-C", repo, "config", "include.path", "../project.gitconfig"]);
      writeFileSync(path.join(repo, "project.gitconfig"), '[includeIf "onbranch:x"]\n\tpath = more.gitconfig\n[alias]\n\tci = commit --no-verify\n');
      writeFileSync(path.join(repo, "more.gitconfig"), "[alias]\n\tcn = commit -n\n");
      execFileSync("git", ["-C", repo, "config", "extensions.worktreeConfig", "true"]);
      execFileSync("git", ["-C", repo, "config", "--worktree", "alias.cw", "commit --no-verify"]);
      for (const command of ["git ci -m x", "git cn -m x", "git cw -m x"]) expect(gate({ cwd: repo, tool_name: "Bash", tool_input: { command } }), command).toMatchObject({ decision: "block" });
      expect(gate({ cwd: repo, tool_name: "Bash", tool_input: { command: "git commit -m x" } })).toEqual({ decision: "pass" });
      // Without extensions.worktreeConfig git does not read config.worktree.
      execFileSync("git", ["-C", repo, "config", "extensions.worktreeConfig", "false"]);
      expect(gate({ cwd: repo, tool_name: "Bash", tool_input: { command: "git cw -m x" } })).toEqual({ decision: "pass" });
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it("follows includes set by -c and GIT_CONFIG_*, reads the system file GIT_CONFIG_SYSTEM names, and stops on an include loop", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tama-git-"));
    try {
      const aliases = path.join(dir, "aliases.cfg");
      const hooks = path.join(dir, "hooks.cfg");
      writeFileSync(aliases, "[alias]\n\tci = commit --no-verify\n");
      writeFileSync(hooks, "[core]\n\thooksPath = /dev/null\n");
      const refused = (command: string): void => expect(gate({ cwd: dir, tool_name: "Bash", tool_input: { command } }), command).toMatchObject({ decision: "block" });
      refused(`git -c include.path=${aliases} ci -m x`);
      refused(`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=include.path GIT_CONFIG_VALUE_0=${aliases} git ci -m x`);
      refused(`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=include.path GIT_CONFIG_VALUE_0=${hooks} git commit -m x`);
      refused(`GIT_CONFIG_PARAMETERS="'include.path'='${hooks}'" git commit -m x`);
      refused(`GIT_CONFIG_SYSTEM=${aliases} git ci -m x`);
      refused(`export GIT_CONFIG_SYSTEM=${aliases}; git ci -m x`);
      expect(gate({ cwd: dir, tool_name: "Bash", tool_input: { command: "git -c include.path=/nonexistent ci -m x" } })).toEqual({ decision: "pass" });
      // A file that includes itself four times over: git gives up at depth 10; Tama reads a bounded number of files.
      const loop = path.join(dir, "loop.cfg");
      writeFileSync(loop, `[include]\n${"\tpath = loop.cfg\n".repeat(4)}[alias]\n\tci = commit -n\n`);
      const began = performance.now();
      refused(`GIT_CONFIG_GLOBAL=${loop} git ci -m x`);
      refused(`git -c include.path=${loop} ci -m x`);
      // Generous: unbounded, this took minutes and overflowed the stack.
      expect(performance.now() - began).toBeLessThan(10_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads parseGitConfig values as git does: quotes, escapes, comments, continuations, subsections", () => {
    expect(parseGitConfig('[alias]\n  a = "x ; y" # c\n  b = one \\\n two\n[remote "origin"]\n  url = u\n[Alias]\n  C = \\"q\\"\n')).toEqual([
      { key: "alias.a", value: "x ; y" },
      { key: "alias.b", value: "one  two" },
      { key: "remote.origin.url", value: "u" },
      { key: "alias.c", value: '"q"' },
    ]);
  });
});

describe("block-git-hook-bypass on code given more words than are read", () => {
  it("refuses code that runs what it computes given more than 64 words", async () => {
    const words = Array.from({ length: 70 }, (_, i) => `w${i}`).join(" ");
    const verdict = await blockGitHookBypass.evaluate(bashCall(`python3 -c 'import os,sys; os.system(sys.argv[70])' ${words}`), { tamaHome: "/tmp/tama" });
    expect(verdict).toMatchObject({ decision: "block" });
    expect(verdict.decision === "block" ? verdict.reason : "").toContain("more than 64 words");
  });
});

describe("block-git-hook-bypass on code execution", () => {
  const code = (language: string, source: string, tool_name = "eval") =>
    blockGitHookBypass.evaluate({ hook_event_name: "PreToolUse", cwd: "/repo", tool_name, tool_input: { language, code: source } }, { tamaHome: "/" });

  it.each([
    ["js", "require('child_process').execSync('git commit --no-verify -m x')"],
    ["js", "const { spawnSync } = require('node:child_process'); spawnSync('git', ['commit', '-n'])"],
    ["js", "await Bun.spawn(['git', 'push', '--no-verify']).exited"],
    ["js", "await $`git commit --no-verify -m ${msg}`"],
    ["js", "const cmd = 'git commit --no-verify'; require('child_process').execSync(cmd)"],
    ["py", "import subprocess\nsubprocess.run('git commit --no-verify -m x', shell=True)"],
    ["py", "import subprocess\nsubprocess.check_call(['git', 'push', '--no-verify'])"],
    ["py", "import os\nos.system('HUSKY=0 git commit -m x')"],
    ["py", "!git commit --no-verify -m x"],
    ["py", "%%bash\ngit push --no-verify"],
    ["py", "args = ['git', 'commit', '-n']\nimport subprocess\nsubprocess.run(args)"],
    // the off switch in the environment the code gives its processes, and a process API renamed on import
    ["py", "import os\nos.environ['HUSKY'] = '0'\nos.system('git commit -m x')"],
    ["py", "import subprocess\nsubprocess.run(['git', 'commit', '-m', 'x'], env={'HUSKY': '0'})"],
    ["py", "import subprocess\nsubprocess.run('git commit -m x', shell=True, env=dict(SKIP='lint'))"],
    ["js", "process.env.HUSKY = '0'; require('child_process').execSync('git commit -m x')"],
    ["js", "require('child_process').execSync('git commit -m x', { env: { ...process.env, LEFTHOOK: '0' } })"],
    ["js", "const { execSync: x } = require('child_process'); x('git commit -n')"],
    ["py", "from subprocess import run as go\ngo('git commit -n', shell=True)"],
  ])("refuses %s: %j", (language, source) => {
    expect(code(language, source)).toMatchObject({ decision: "block", reason: expect.stringMatching(/^eval code runs a command: /) });
  });

  it.each([
    ["js", "require('child_process').execSync('git log -n 5')"],
    ["js", "console.log('git commit --no-verify')"],
    ["py", "print('git commit --no-verify')"],
    ["py", "import subprocess\nsubprocess.run(['git', 'status'])"],
    ["py", "x = 1 != 2"],
    ["py", "import subprocess\nsubprocess.run(['git', 'commit', '-m', 'x'], env={'HUSKY': '1'})"],
    ["js", "const HUSKY = process.env.HUSKY; console.log(HUSKY)"],
  ])("lets %s through: %j", (language, source) => {
    expect(code(language, source)).toEqual({ decision: "pass" });
  });

  it("reads a debug launch as the program and its arguments", () => {
    const launch = { action: "launch", program: "/usr/bin/git", args: ["commit", "--no-verify"] };
    expect(blockGitHookBypass.evaluate({ hook_event_name: "PreToolUse", cwd: "/", tool_name: "debug", tool_input: launch }, { tamaHome: "/" })).toMatchObject({ decision: "block" });
    const step = { action: "step_over", program: "/usr/bin/git", args: ["commit", "--no-verify"] };
    expect(blockGitHookBypass.evaluate({ hook_event_name: "PreToolUse", cwd: "/", tool_name: "debug", tool_input: step }, { tamaHome: "/" })).toEqual({ decision: "pass" });
  });
});

describe("parseShell", () => {
  it("keeps quoted text as one word and splits on operators", () => {
    const commands = parseShell(`A=1 git commit -m "a; b && c" && echo 'x|y' | wc -l`);
    expect(commands.map((c) => c.argv)).toEqual([
      ["git", "commit", "-m", "a; b && c"],
      ["echo", "x|y"],
      ["wc", "-l"],
    ]);
    expect(commands[0]?.assignments).toEqual([{ name: "A", value: "1" }]);
  });

  it("finds commands inside substitutions, nested ones included", () => {
    const argvs = parseShell(`echo "$(git rev-parse $(echo HEAD))" \`date\``).map((c) => c.argv[0]);
    expect(argvs).toEqual(expect.arrayContaining(["echo", "git", "date"]));
  });

  it("drops redirections and keeps here-document bodies as stdin", () => {
    const [cat] = parseShell("cat <<-EOF 2>/dev/null >out.txt\n\thello\n\tEOF\necho after");
    expect(cat?.argv).toEqual(["cat"]);
    expect(cat?.stdin).toEqual(["hello"]);
    expect(parseShell("cat <<EOF\nx\nEOF\necho after").map((c) => c.argv)).toEqual([["cat"], ["echo", "after"]]);
  });

  it("handles escapes, ANSI-C quotes and line continuations", () => {
    expect(parseShell(`echo a\\ b $'c\\td' "e\\"f" g\\\nh`)[0]?.argv).toEqual(["echo", "a b", "c\td", 'e"f', "gh"]);
  });

  it("is lenient with unterminated quotes", () => {
    expect(parseShell(`git commit -m "unterminated`)[0]?.argv).toEqual(["git", "commit", "-m", "unterminated"]);
  });
});

describe("a git alias read where it runs on the line", () => {
  /** A project and, inside it, another repository whose config defines `alias` (which only `--git-dir` brings in); `check` runs in the project. */
  function withAliasRepo(alias: [name: string, value: (project: string) => string], check: (project: string, dir: string) => void): void {
    const dir = mkdtempSync(path.join(tmpdir(), "tama-alias-"));
    try {
      const project = path.join(dir, "proj");
      mkdirSync(project);
      execFileSync("git", ["init", "-q", project]);
      execFileSync("git", ["init", "-q", path.join(project, "other")]);
      execFileSync("git", ["-C", path.join(project, "other"), "config", `alias.${alias[0]}`, alias[1](project)]);
      check(project, dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const gateHook = (id: string): HookEntry => HookEntry.parse({ id, builtin: id, events: ["pre_tool_use"] });
  const call = (project: string, command: string): HookInput => ({ hook_event_name: "PreToolUse", session_id: "s", cwd: project, tool_name: "bash", tool_input: { command } });

  it("runs a script as the line left it when the alias ran, not as later commands rewrite it", () => {
    withAliasRepo(["x", (project) => `!bash ${project}/s.sh`], (project, dir) => {
      writeFileSync(path.join(project, "s.sh"), `cd ${project} && git commit --no-verify --allow-empty -m bypassed\n`);
      const runs = new GateRuns();
      const input = call(project, "git --git-dir=other/.git x; echo true > s.sh");
      const context = { tamaHome: path.join(dir, "tama") };
      // The gates run one after another on one input, sharing its walk, as a dispatch runs them.
      for (const other of ["self-protection", "deny-writes-outside-repo"]) runs.run(gateHook(other), other, input, context);
      expect(runs.run(gateHook("block-git-hook-bypass"), "block-git-hook-bypass", input, context)).toMatchObject({ verdict: "block", reason: expect.stringContaining("git commit --no-verify") });
    });
  });

  it("reads the aliases of the repository --git-dir names, for every gate", () => {
    withAliasRepo(["wipe", () => "!rm -rf /"], (project, dir) => {
      const runs = new GateRuns();
      const context = { tamaHome: path.join(dir, "tama") };
      const decide = (command: string) => runs.run(gateHook("block-destructive-deletes"), "block-destructive-deletes", call(project, command), context);
      for (const command of ["git --git-dir=other/.git wipe", "git --git-dir other/.git wipe", "GIT_DIR=other/.git git wipe"]) {
        expect(decide(command), command).toMatchObject({ verdict: "block" });
      }
      expect(decide("git wipe")).toMatchObject({ verdict: "pass" });
    });
  });
});
