#!/usr/bin/env python3
# PreToolUse hook (Claude Code compatible): deny writes to files outside the
# repository the session works in. The repository is the git top level of the
# event's cwd, else the cwd itself. Symlinks are resolved, so a link inside the
# repository that points out of it does not get through.
#
#
#   tama hooks add --id deny-writes-outside-repo --event pre_tool_use --tools write \
#     --fail-mode closed -- python3 /path/to/examples/deny-writes-outside-repo.py
#
# Code execution (OMP's eval) reaches write hooks too: each file its code writes
# through a literal path comes as a Write, and the call itself carries
# "unnamed_writes": true, since code can write files no hook was shown. With
# --refuse-unnamed-writes this hook refuses such calls as well.
import json
import os
import subprocess
import sys

event = json.load(sys.stdin)
cwd = event.get("cwd") or os.getcwd()
if event.get("unnamed_writes") is True and "--refuse-unnamed-writes" in sys.argv[1:]:
    print(f"{event.get('tool_name')} runs code that can write files outside the repository unseen; use write or edit", file=sys.stderr)
    sys.exit(2)
target = (event.get("tool_input") or {}).get("file_path")
if not isinstance(target, str) or not target:
    sys.exit(0)  # nothing to judge: the engine itself refuses a write that names no file

try:
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()
except (OSError, subprocess.CalledProcessError):
    root = cwd

root = os.path.realpath(root)
path = os.path.realpath(os.path.join(cwd, os.path.expanduser(target)))
if os.path.commonpath([root, path]) != root:
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"{target} is outside the repository {root}; write inside it",
        }
    }))
sys.exit(0)
