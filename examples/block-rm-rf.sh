#!/bin/sh
# PreToolUse hook (Claude Code compatible): refuse `rm -rf` (and -fr, -r -f, -Rf,
# --recursive --force) in shell commands. Plain sh, no jq: it matches the JSON
# text, which is enough for an example and errs toward refusing.
#
#   tama hooks add --id block-rm-rf --event pre_tool_use --tools shell -- /path/to/examples/block-rm-rf.sh
input=$(cat)
case "$input" in
  *'"tool_name":"Bash"'* | *'"tool_name": "Bash"'*) ;;
  *) exit 0 ;;
esac
flags='(-[[:alpha:]]*[rR][[:alpha:]]*f|-[[:alpha:]]*f[[:alpha:]]*[rR]|-[rR][[:space:]]+-f|-f[[:space:]]+-[rR]|--recursive[[:space:]]+--force|--force[[:space:]]+--recursive)'
if printf '%s' "$input" | grep -Eq "(^|[^[:alnum:]_-])rm[[:space:]]+$flags"; then
  echo "rm -rf is not allowed here: remove the files you mean by name, or ask the user to" >&2
  exit 2
fi
exit 0
