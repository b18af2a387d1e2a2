#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Checks a Grafana dashboard of ratewall's metrics (dist/ratewall-dashboard.json).

1. Its shape, what Grafana needs to load it: uid, title, schemaVersion, panels
   each with an id (unique), a type, a title, a gridPos inside the 24 columns
   and clear of the other panels, and targets with a refId (unique in the
   panel) and an expr.
2. Its wiring: every panel, target and query variable reads the Prometheus
   data source the `datasource` variable names; `instance` and `interface` are
   query variables (multi, includeAll); every selector of a family ratewall
   serves (ratewall_*, and up) keeps to instance=~"$instance", and of a family
   with an interface label (what metrics_page.c's per_iface writes) to
   interface=~"$interface" too; every variable an expr names is defined, and
   every one defined is used.
3. With --prometheus URL: every target's expr, its variables replaced (the
   query variables by .*, $__rate_interval and $__interval by --rate-interval,
   $__range by --range), through /api/v1/query, and every query variable's
   label_values() through /api/v1/label/NAME/values: each must answer with
   data (at --time, a Unix time, when given; else now). Each panel whose
   query errs or is empty is named. A query that reads only families of an
   --optional prefix (those of an option the hosts do not run, such as
   ratewall_bgp_) may be empty; it must still answer.

Usage: check_dashboard.py [--prometheus URL [--time T]] [--rate-interval D] [--range D]
                          [--optional PREFIX]... [DASHBOARD.json | ROOT]
(ROOT: a tree whose dist/ratewall-dashboard.json is checked; default: this one.)
Exits 1 on any finding, 2 on bad usage.
"""
import argparse
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

HERE_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DASHBOARD = os.path.join("dist", "ratewall-dashboard.json")
METRICS_PAGE = os.path.join("user", "views", "metrics_page.c")
PANEL_TYPES = {"timeseries", "bargauge", "stat", "table", "gauge", "barchart", "piechart", "heatmap", "text",
               "state-timeline", "status-history", "histogram"}
DS_UIDS = ("${datasource}", "$datasource")
QUERY_VARIABLES = ("instance", "interface")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
# A metric ratewall serves, and the braces of its selector if it has them.
SELECTOR = re.compile(r'(?<![\w:.])(ratewall_\w+|up)(?![\w:])(\s*\{([^}]*)\})?')
VARIABLE = re.compile(r'\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]')
LABEL_VALUES = re.compile(r'^\s*label_values\(\s*(?:(.*),\s*)?(\w+)\s*\)\s*$', re.S)


def interface_families(root):
    """The families with an interface label: each per_iface() call of the metrics page."""
    with open(os.path.join(root, METRICS_PAGE), encoding="utf-8") as f:
        return set(re.findall(r'per_iface\(\s*out,\s*r,\s*"(ratewall_\w+)"', f.read()))


def is_ds(ds):
    return (isinstance(ds, dict) and ds.get("type") == "prometheus" and ds.get("uid") in DS_UIDS) or ds in DS_UIDS


def variables_in(text):
    return {a or b or c for a, b, c in VARIABLE.findall(text)}


def selectors(expr):
    """(family, label matchers text or None) of each selector of a ratewall family, outside strings."""
    strings = [m.span() for m in STRING.finditer(expr)]
    for m in SELECTOR.finditer(expr):
        if not any(a <= m.start() < b for a, b in strings):
            yield m.group(1), m.group(3)


def check_shape(d):
    bad = []
    for field, kind in (("uid", str), ("title", str), ("schemaVersion", int), ("panels", list)):
        if not isinstance(d.get(field), kind) or (kind is not int and not d.get(field)):
            bad.append(f"dashboard: no {field} ({kind.__name__})")
    if isinstance(d.get("uid"), str) and len(d["uid"]) > 40:
        bad.append("dashboard: uid longer than Grafana's 40 characters")
    if not isinstance(d.get("templating", {}).get("list"), list):
        bad.append("dashboard: no templating.list")
    ids, boxes = set(), []
    for i, p in enumerate(d.get("panels") or []):
        name = f"panel {p.get('id', '#' + str(i + 1))} \"{p.get('title', '')}\""
        if not isinstance(p.get("id"), int):
            bad.append(f"{name}: no id")
        elif p["id"] in ids:
            bad.append(f"{name}: id {p['id']} is another panel's too")
        ids.add(p.get("id"))
        if p.get("type") not in PANEL_TYPES:
            bad.append(f"{name}: type {p.get('type')!r} is not a panel type")
        if not isinstance(p.get("title"), str) or not p.get("title"):
            bad.append(f"{name}: no title")
        g = p.get("gridPos")
        if not isinstance(g, dict) or not all(isinstance(g.get(k), int) for k in "xywh"):
            bad.append(f"{name}: no gridPos with x, y, w and h")
        elif g["x"] < 0 or g["y"] < 0 or g["w"] < 1 or g["h"] < 1 or g["x"] + g["w"] > 24:
            bad.append(f"{name}: gridPos {g} outside the 24 columns")
        else:
            for other, o in boxes:
                if g["x"] < o["x"] + o["w"] and o["x"] < g["x"] + g["w"] and \
                        g["y"] < o["y"] + o["h"] and o["y"] < g["y"] + g["h"]:
                    bad.append(f"{name}: gridPos overlaps {other}")
            boxes.append((name, g))
        targets = p.get("targets")
        if not isinstance(targets, list) or not targets:
            bad.append(f"{name}: no targets")
            continue
        refs = set()
        for t in targets:
            if not isinstance(t.get("refId"), str) or not t.get("refId"):
                bad.append(f"{name}: a target without a refId")
            elif t["refId"] in refs:
                bad.append(f"{name}: refId {t['refId']} twice")
            refs.add(t.get("refId"))
            if not isinstance(t.get("expr"), str) or not t["expr"].strip():
                bad.append(f"{name}: target {t.get('refId')} has no expr")
    return bad


def check_wiring(d, iface_families):
    bad, used = [], set()
    defined = {v.get("name"): v for v in d.get("templating", {}).get("list", []) if isinstance(v, dict)}
    ds_var = defined.get("datasource")
    if not ds_var or ds_var.get("type") != "datasource" or ds_var.get("query") != "prometheus":
        bad.append("templating: no variable datasource of type datasource, query prometheus")
    for name in QUERY_VARIABLES:
        v = defined.get(name)
        if not v or v.get("type") != "query":
            bad.append(f"templating: no query variable {name}")
            continue
        if not (v.get("multi") and v.get("includeAll")):
            bad.append(f"templating: {name} is not multi with includeAll")
        if not is_ds(v.get("datasource")):
            bad.append(f"templating: {name} does not read the ${{datasource}} variable's data source")
    for v in defined.values():
        if v.get("type") == "query":
            q = v.get("query")
            q = q.get("query", "") if isinstance(q, dict) else q or ""
            used |= variables_in(q)
            if not LABEL_VALUES.match(q):
                bad.append(f"templating: {v.get('name')}'s query {q!r} is not label_values(...)")
    for p in d.get("panels") or []:
        name = f"panel {p.get('id')} \"{p.get('title', '')}\""
        if not is_ds(p.get("datasource")):
            bad.append(f"{name}: its datasource is not the ${{datasource}} variable")
        else:
            used.add("datasource")
        for t in p.get("targets") or []:
            where = f"{name} target {t.get('refId')}"
            if not is_ds(t.get("datasource")):
                bad.append(f"{where}: its datasource is not the ${{datasource}} variable")
            expr = t.get("expr") or ""
            used |= variables_in(expr)
            for family, matchers in selectors(expr):
                m = STRING.sub(lambda s: s.group(0).replace("${", "$").replace("}", ""), matchers or "")
                if 'instance=~"$instance"' not in m:
                    bad.append(f'{where}: {family} without instance=~"$instance"')
                if family in iface_families and 'interface=~"$interface"' not in m:
                    bad.append(f'{where}: {family} without interface=~"$interface"')
    for name in sorted(used):
        if not name.startswith("__") and name not in defined:
            bad.append(f"${name} is used but not defined in templating")
    for name in sorted(defined):
        if name not in used:
            bad.append(f"templating: ${name} is defined but no query uses it")
    return bad


def findings(d, iface_families):
    """What is wrong with the dashboard d: its shape first, then (a sound shape) its wiring."""
    bad = check_shape(d)
    return bad or check_wiring(d, iface_families)


def substitute(text, names, rate_interval, range_):
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    range_s = int(range_[:-1]) * seconds[range_[-1]]
    builtin = {"__rate_interval": rate_interval, "__interval": rate_interval, "__range": range_,
               "__range_s": str(range_s), "__range_ms": str(range_s * 1000)}

    def one(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name in builtin:
            return builtin[name]
        if name in names:
            return ".*"
        raise ValueError(f"${name} has no value to put in")
    return VARIABLE.sub(one, text)


class Prometheus:
    def __init__(self, url, at=None):
        self.url = url.rstrip("/")
        self.at = at  # the Unix time queries are answered at (None: now)
        # Straight to the server named, whatever proxy the environment has.
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def get(self, path, params):
        """The API's data, or raises ValueError with what went wrong (a GET: the label API takes no POST)."""
        try:
            with self.opener.open(self.url + path + "?" + urllib.parse.urlencode(params), timeout=10) as r:
                answer = json.load(r)
        except urllib.error.HTTPError as e:
            try:
                answer = json.load(e)
            except ValueError:
                raise ValueError(f"HTTP {e.code}") from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise ValueError(str(e)) from None
        if answer.get("status") != "success":
            raise ValueError(f"{answer.get('errorType', 'error')}: {answer.get('error', '?')}")
        return answer["data"]

    def query(self, expr):
        """How many series (or 1 for a scalar) the expr answers with now."""
        data = self.get("/api/v1/query", dict({"query": expr}, **({"time": self.at} if self.at else {})))
        return len(data["result"]) if data["resultType"] in ("vector", "matrix") else 1

    def label_values(self, query):
        match, label = LABEL_VALUES.match(query).groups()
        params = {"match[]": match} if match else {}
        if self.at:  # the series of the minute before it
            params.update(start=self.at - 60, end=self.at)
        return len(self.get(f"/api/v1/label/{label}/values", params))


def only_optional(expr, optional):
    """Whether every metric family expr reads begins with one of the optional prefixes."""
    names = set(re.findall(r"\b(ratewall_[a-z0-9_]+|up)\b", expr))
    return bool(names) and all(any(n.startswith(o) for o in optional) for n in names)


def check_answers(d, prom, rate_interval, range_, optional=()):
    """One line per query; the names of the panels (and variables) whose query failed."""
    names = {v.get("name") for v in d["templating"]["list"] if v.get("type") == "query"}
    failed, n = [], 0
    for v in d["templating"]["list"]:
        if v.get("type") != "query":
            continue
        q = v["query"].get("query") if isinstance(v["query"], dict) else v["query"]
        n += 1
        try:
            got = prom.label_values(substitute(q, names, rate_interval, range_))
            why = "" if got else "no values"
        except ValueError as e:
            got, why = 0, str(e)
        print(f"{'FAIL' if why else 'ok  '} variable {v['name']}: {why or str(got) + ' values'}")
        if why:
            failed.append(f"variable {v['name']} ({why})")
    for p in d["panels"]:
        for t in p["targets"]:
            n += 1
            try:
                got = prom.query(substitute(t["expr"], names, rate_interval, range_))
                why = "" if got else "no data"
                if not got and only_optional(t["expr"], optional):
                    print(f"ok   panel {p['id']} \"{p['title']}\" {t['refId']}: no data, of an option "
                          f"the hosts do not run (--optional)")
                    continue
            except ValueError as e:
                got, why = 0, str(e)
            print(f"{'FAIL' if why else 'ok  '} panel {p['id']} \"{p['title']}\" {t['refId']}: "
                  f"{why or str(got) + ' series'}")
            if why:
                failed.append(f"panel {p['id']} \"{p['title']}\" {t['refId']} ({why})")
    return n, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", nargs="?", default=HERE_ROOT, help="the dashboard JSON, or a tree holding it")
    ap.add_argument("--prometheus", metavar="URL", help="run every query against this Prometheus")
    ap.add_argument("--rate-interval", default="1m", metavar="D", help="$__rate_interval and $__interval (1m)")
    ap.add_argument("--range", default="1h", metavar="D", help="$__range (1h)")
    ap.add_argument("--time", type=float, metavar="T", help="answer the queries at this Unix time (default: now)")
    ap.add_argument("--optional", action="append", default=[], metavar="PREFIX",
                    help="families of an option the hosts do not run: their queries may be empty")
    a = ap.parse_args()
    for d_ in (a.rate_interval, a.range):
        if not re.fullmatch(r"\d+[smhd]", d_):
            ap.error(f"{d_!r} is not a duration such as 30s, 1m, 1h")
    root, path = (a.path, os.path.join(a.path, DASHBOARD)) if os.path.isdir(a.path) else (HERE_ROOT, a.path)
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        families = interface_families(root)
    except (OSError, ValueError) as e:
        print(f"FAIL {e}")
        return 1
    if not families:
        print(f"FAIL no per_iface family in {os.path.join(root, METRICS_PAGE)}: cannot check $interface")
        return 1
    bad = findings(d, families)
    for b in bad:
        print(f"FAIL {b}")
    npanels = len(d.get("panels") or [])
    ntargets = sum(len(p.get("targets") or []) for p in d.get("panels") or [])
    if bad:
        print(f"{path}: {len(bad)} findings")
        return 1
    print(f"ok   {path}: {npanels} panels, {ntargets} queries; shape and wiring")
    if not a.prometheus:
        return 0
    n, failed = check_answers(d, Prometheus(a.prometheus, a.time), a.rate_interval, a.range, a.optional)
    if failed:
        print(f"{len(failed)} of {n} queries failed: " + "; ".join(failed))
        return 1
    print(f"all {n} queries answered ({npanels} panels, {ntargets} targets, {n - ntargets} variables)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
