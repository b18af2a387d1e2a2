#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Grafana dashboard (dist/ratewall-dashboard.json): it is what
# tools/dashboard.py renders, and tests/harness/check_dashboard.py finds
# Grafana's fields and the datasource, $instance and $interface wiring in it;
# the check fails on each thing it exists to catch, planted in a copy. (That
# every query answers is checked against the fleet test's Prometheus:
# tests/integration/service/test_fleet.sh.) No root, no network.
set -u
. "$(dirname "$0")/planted.sh"
CHECK="$ROOT/tests/harness/check_dashboard.py"
JSON="$WORK/t/dist/ratewall-dashboard.json"

python3 "$ROOT/tools/dashboard.py" "$WORK/rendered.json"
if cmp -s "$ROOT/dist/ratewall-dashboard.json" "$WORK/rendered.json"; then
	ok "dist/ratewall-dashboard.json is what tools/dashboard.py renders"
else
	fail "dist/ratewall-dashboard.json differs from a fresh render; run: python3 tools/dashboard.py"
	diff "$ROOT/dist/ratewall-dashboard.json" "$WORK/rendered.json" | head -n 10
fi
sed '0,/"title": "Tracked keys"/s//"title": "Tracked sources"/' "$WORK/rendered.json" >"$WORK/edited.json"
if ! cmp -s "$WORK/rendered.json" "$WORK/edited.json" && ! cmp -s "$ROOT/dist/ratewall-dashboard.json" "$WORK/edited.json"; then
	ok "a dashboard edited by hand differs from the render"
else
	fail "an edited dashboard was not told apart from the render"
fi

out=$(python3 "$CHECK" "$ROOT" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -eq 0 ] && grep -qE '^ok   .*: [0-9]+ panels, [0-9]+ queries; shape and wiring$' <<<"$out"; then
	ok "the dashboard has Grafana's fields, and its datasource and variables are wired"
else
	fail "the dashboard's shape or wiring is wrong (exit $rc)"
fi

# The planted dashboards, each the committed one edited by a line of Python (d:
# the dashboard; panel, var: its panels and variables by name), and what the
# check must say of it. All in one Python, the check's own findings(): a
# Python start costs a second here.
python3 - "$ROOT" <<'PY' >"$WORK/planted.out" 2>&1
import copy, json, re, sys
sys.path.insert(0, sys.argv[1] + "/tests/harness")
import check_dashboard as cd
d0 = json.load(open(sys.argv[1] + "/dist/ratewall-dashboard.json"))
families = cd.interface_families(sys.argv[1])
CASES = [
    ("a dashboard without a uid", 'del d["uid"]', r'^dashboard: no uid'),
    ("a dashboard without schemaVersion", 'del d["schemaVersion"]', r'^dashboard: no schemaVersion'),
    ("two panels with one id", 'd["panels"][1]["id"] = d["panels"][0]["id"]', r'id 1 is another panel.s too'),
    ("a panel without gridPos", 'del panel["Versions"]["gridPos"]', r'"Versions": no gridPos'),
    ("panels on top of each other", 'panel["Versions"]["gridPos"] = dict(panel["Tracked keys"]["gridPos"])',
     r'"Versions": gridPos overlaps'),
    ("a panel past the 24 columns", 'panel["Versions"]["gridPos"]["w"] = 20',
     r'"Versions": gridPos .* outside the 24 columns'),
    ("a panel of no type Grafana has", 'panel["Versions"]["type"] = "graph2"', r'"Versions": type .graph2. is not'),
    ("a target without a refId", 'del panel["Tick duration"]["targets"][1]["refId"]',
     r'"Tick duration": a target without a refId'),
    ("two targets with one refId", 'panel["Tick duration"]["targets"][1]["refId"] = "A"',
     r'"Tick duration": refId A twice'),
    ("a target without an expr", 'panel["Tick duration"]["targets"][1]["expr"] = " "',
     r'"Tick duration": target B has no expr'),
    ("a panel without targets", 'panel["Versions"]["targets"] = []', r'"Versions": no targets'),
    ("a panel on a fixed data source",
     'panel["Tracked keys"]["datasource"] = {"type": "prometheus", "uid": "P1809F7CD0C75ACF3"}',
     r'"Tracked keys": its datasource is not the \$\{datasource\} variable'),
    ("a target on a fixed data source",
     'panel["Tick duration"]["targets"][0]["datasource"] = {"type": "prometheus", "uid": "prom"}',
     r'"Tick duration" target A: its datasource is not'),
    ("a selector without $instance", 'panel["Tracked keys"]["targets"][0]["expr"] = "ratewall_tracked_sources"',
     r'"Tracked keys" target A: ratewall_tracked_sources without instance=~"\$instance"'),
    ("an interface family without $interface",
     't = panel["Dropped packets/s per host and interface"]["targets"][0]; '
     r't["expr"] = t["expr"].replace(",interface=~\"$interface\"", "")',
     r'ratewall_dropped_packets_total without interface=~"\$interface"'),
    ("up without $instance", r'panel["Targets up"]["targets"][0]["expr"] = "up{job=\"ratewall\"}"',
     r'"Targets up" target A: up without instance'),
    ("a variable used but not defined",
     r'panel["Tracked keys"]["targets"][0]["expr"] = "ratewall_tracked_sources{instance=~\"$instance\",site=~\"$site\"}"',
     r'\$site is used but not defined'),
    ("a variable defined but unused", 'd["templating"]["list"].append(dict(var["instance"], name="site"))',
     r'\$site is defined but no query uses it'),
    ("a variable not multi-valued", 'var["interface"]["multi"] = False', r'interface is not multi with includeAll'),
    ("no interface variable", 'd["templating"]["list"].remove(var["interface"])', r'no query variable interface'),
    ("no datasource variable", 'var["datasource"]["type"] = "custom"', r'no variable datasource of type datasource'),
    ("a query variable on a fixed data source", 'var["instance"]["datasource"] = {"type": "prometheus", "uid": "p"}',
     r'instance does not read the \$\{datasource\} variable'),
    ("a query variable that is not label_values()", 'var["instance"]["query"] = "up"',
     r"instance's query 'up' is not label_values"),
]
for what, edit, want in CASES:
    d = copy.deepcopy(d0)
    panel = {p["title"]: p for p in d["panels"]}
    var = {v["name"]: v for v in d["templating"]["list"]}
    exec(edit)
    got = cd.findings(d, families)
    if d == d0:
        print(f"FAIL the edit changed nothing: {what}")
    elif any(re.search(want, b) for b in got):
        print(f"ok   refused: {what}")
    else:
        print(f"FAIL not refused as /{want}/: {what}: {got[:3]}")
PY
while read -r word rest; do
	case "$word" in
	ok) ok "$rest" ;;
	FAIL) fail "$rest" ;;
	*) fail "planted dashboards: $word $rest" ;;
	esac
done <"$WORK/planted.out"
[ -s "$WORK/planted.out" ] || fail "planted dashboards: no output"

copy dist user
expect "an unchanged copy passes" 0 'shape and wiring$'
# The command line too: a planted dashboard fails it (exit 1), saying why.
copy dist user
sed -i 's/^      "id": 2,$/      "id": 1,/' "$JSON"
expect "a planted dashboard fails the command line" 1 'id 1 is another panel'

# Where the interface families come from: the metrics page, never a list of our own.
copy dist user
sed -i 's/per_iface(out, r, "ratewall_/per_interface(out, r, "ratewall_/' "$WORK/t/user/views/metrics_page.c"
expect "without the metrics page's per_iface families the check refuses to pass" 1 'no per_iface family'

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
