#!/usr/bin/env python3
# PostToolUse + Stop hook (Claude Code compatible): the turn may not end while
# files were changed after the tests last ran. PostToolUse notes writes and test
# runs per session; Stop refuses with the reason while a write is newer than the
# last test run. (Tama lets the turn end after 8 refusals in a row; Claude Code
# sets stop_hook_active on a continued turn.)
#
#   tama hooks add --id require-tests --event post_tool_use --event stop \
#     -- python3 /path/to/examples/require-tests-before-stop.py
import json
import os
import re
import sys
import tempfile

TEST_COMMAND = re.compile(r"\b(npm (run )?test|npx vitest|vitest|pytest|go test|cargo test|make test|yarn test|pnpm test)\b")
WRITE_TOOLS = {"Write", "Edit", "MultiEdit", "NotebookEdit", "ast_edit"}

event = json.load(sys.stdin)
session = re.sub(r"[^A-Za-z0-9_.-]", "_", event.get("session_id") or "no-session")
state_file = os.path.join(tempfile.gettempdir(), f"tama-require-tests.{session}.json")

try:
    with open(state_file) as f:
        state = json.load(f)
except (OSError, ValueError):
    state = {"changed": []}

name = event.get("hook_event_name")
if name == "PostToolUse":
    tool = event.get("tool_name")
    tool_input = event.get("tool_input") or {}
    if tool in WRITE_TOOLS:
        state["changed"] = sorted(set(state["changed"]) | {tool_input.get("file_path") or tool})
    elif tool == "Bash" and TEST_COMMAND.search(tool_input.get("command") or ""):
        state["changed"] = []
    temp = f"{state_file}.{os.getpid()}"
    with open(temp, "w") as f:
        json.dump(state, f)
    os.replace(temp, state_file)
elif name == "Stop" and state["changed"]:
    files = ", ".join(state["changed"][:5]) + (" …" if len(state["changed"]) > 5 else "")
    print(json.dumps({"decision": "block", "reason": f"Files changed since the tests last ran ({files}): run the tests (e.g. npm test), then finish."}))
sys.exit(0)
