#!/usr/bin/env bash
# The example alerting rules (packaging/pipetrace-alerts.yml) as Debian's
# promtool sees them: valid, each alert firing (and not firing) on
# made-up series as its test file says, and every metric they use one
# pipestat exports (docs/METRICS.md, generated from the series table).
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

RULES=packaging/pipetrace-alerts.yml
if ! command -v promtool >/dev/null; then
	not_ok "rules: promtool is installed (Debian's prometheus)"
	summary
	exit
fi
promtool check rules "$RULES" >"$TMP/check.log" 2>&1
expect "rules: promtool check rules" "$?" 0
expect "rules: four alerts" "$(grep -c 'SUCCESS: 4 rules found' "$TMP/check.log")" 1
(cd packaging && promtool test rules pipetrace-alerts.test.yml) >"$TMP/test.log" 2>&1
expect "rules: promtool test rules" "$?" 0
grep -A20 FAILED "$TMP/test.log" | sed 's/^/# /'
missing=
for m in $(grep -oE 'pipetrace_[a-z_]+' "$RULES" | sort -u); do
	grep -q "\`$m" docs/METRICS.md || missing="$missing $m"
done
expect "rules: every metric they use is exported" "${missing# }" ""
summary
