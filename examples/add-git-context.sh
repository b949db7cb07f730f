#!/bin/sh
# UserPromptSubmit hook (Claude Code compatible): add where the repository stands
# to the prompt. Plain text on stdout with exit 0 is context for the model; outside
# a git repository it adds nothing.
#
#   tama hooks add --id git-context --event user_prompt_submit -- /path/to/examples/add-git-context.sh
cat >/dev/null
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || exit 0
branch=$(git branch --show-current 2>/dev/null)
changed=$(git status --porcelain 2>/dev/null | wc -l | tr -d ' ')
last=$(git log -1 --format=%s 2>/dev/null)
echo "Repository context: branch ${branch:-(detached)}, ${changed} changed file(s), last commit: ${last:-(none)}."
exit 0
