#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""test_fleet.sh's captures: what Prometheus answered in each part, beside
what the generators sent, as README.md and docs/operations/fleet.md show it
(tools/captures/captures.py checks their format; make docs writes them).
Reads the files test_fleet.sh leaves in WORK; writes the capture to stdout.

  fleet_captures.py top WORK PROMQL ADDR...     (a) and (b): fleet-top
  fleet_captures.py spread WORK PROMQL SHARE TOP ADDR...
                                                  (e): fleet-spread
  fleet_captures.py defaults WORK PROMQL ADDR...  (f), the README's: fleet-defaults
  fleet_captures.py min-share WORK PROMQL ADDR... (f) with --metrics-min-share 0
                                                  beside it: fleet-min-share
"""
import glob
import json
import os
import sys

SPREAD = "198.18.20.0"  # (f)'s spread source


def result(path):
    return json.load(open(path))["data"]["result"]


def ranked(path, label="source"):
    """A topk answer: (label, value) heaviest first."""
    return sorted(((r["metric"][label], float(r["value"][1])) for r in result(path)),
                  key=lambda kv: -kv[1])


def and_list(items):
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def kpps(pps):
    return "%gk" % round(pps / 1000, 1)


def top(work, promql, addrs):
    """(a): the fleet's top sources, what each host's generators sent of
    each; (b): which hosts RatewallSourcesLimited is up for, which keys are
    limited."""
    sent = {}  # source: [pps to host 1, 2, 3]
    for path in glob.glob(os.path.join(work, "gen.*")):
        _, host, src = os.path.basename(path).split(".", 2)
        sent.setdefault(src, [0.0] * len(addrs))[int(host)] += json.load(open(path))["pps"]
    out = [promql, "", "source        PromQL answer   generators sent"]
    for src, got in ranked(os.path.join(work, "topk.json")):
        per = sent.get(src, [0.0])
        line = "%-13s %6.0f          %6.0f" % (src, got, sum(per))
        hosts = ["%s to host %d" % (kpps(p), i) for i, p in enumerate(per, 1) if p]
        if len(hosts) > 1:
            line += "  (" + " + ".join(hosts) + ")"
        out.append(line)
    host = {a: i for i, a in enumerate(addrs, 1)}
    alerts = sorted((host.get(a["metric"]["instance"], 0), a["metric"]["alertstate"])
                    for a in result(os.path.join(work, "alerts.json")))
    states = sorted({state for _, state in alerts})
    limited = sorted({'source="%s"' % r["metric"]["source"]
                      for r in result(os.path.join(work, "limited.json"))})
    out += ["",
            'ALERTS{alertname="RatewallSourcesLimited"}  ->  %s (%s)' % (
                ("hosts " if len(alerts) > 1 else "host ") + and_list(str(h) for h, _ in alerts)
                if alerts else "none", ", ".join(states) or "-"),
            'ratewall_source_limited{kind="src"} == 1     ->  %s' % (
                limited[0] + " only" if len(limited) == 1 else ", ".join(limited) or "none")]
    return out


def spread(work, promql, share, top_n, addrs):
    """(e): the fleet's top 3 against what was sent, whether a host's own
    top-N held the spread source, the bound, its pair, the /24, the series."""
    sent, fleet = {}, 0.0
    for i in range(3):
        g = json.load(open(os.path.join(work, "spread.%d.sent" % i)))
        for src, n in g["per_source"].items():
            sent[src] = sent.get(src, 0) + n / g["seconds"]
            fleet += n / g["seconds"]
    spread_src = max(sent, key=sent.get)
    in_host_top = set()
    for i in range(3):
        for line in open(os.path.join(work, "spread.rw%d.json" % i)):
            in_host_top |= {e["key"] for e in json.loads(line)["top"]}
    out = [promql, "", "source        PromQL answer   generators sent"]
    for src, got in ranked(os.path.join(work, "spread.topk.json")):
        line = "%-13s %6.0f          %6.0f" % (src, got, sent.get(src, 0))
        if src == spread_src:
            line += "   (%s)" % ("in a host's top %d" % top_n if src in in_host_top
                                 else "no host's top %d holds it" % top_n)
        out.append(line)
    bound = result(os.path.join(work, "spread.bound.json"))
    pair = ranked(os.path.join(work, "spread.pair.json"), "key")
    prefix = ranked(os.path.join(work, "spread.prefix.json"), "prefix")
    series = {}
    for r in result(os.path.join(work, "spread.series.json")):
        series.setdefault(r["metric"]["instance"], {})[r["metric"]["kind"]] = int(r["value"][1])
    kinds = sorted({k for s in series.values() for k in s})
    out += ["",
            "the bound: %s pps (%g %% of %.1f kpps); its pair (--rank pair) is %s;" % (
                "%.0f" % float(bound[0]["value"][1]) if bound else "none", share * 100,
                fleet / 1000, "the fleet's #1 at %.0f" % pair[0][1]
                if pair and pair[0][0].startswith(spread_src + " ") else "not the fleet's #1"),
            "sum by (prefix) of level 24: %s (sent %.0f);" % (
                ", ".join("%s = %.0f" % kv for kv in prefix) or "none", fleet),
            "series per host, %s: %s (at most %d a kind)" % (
                and_list(kinds), ", ".join(" and ".join(str(s.get(k, 0)) for k in kinds)
                                           for s in (series.get(a, {}) for a in addrs)),
                max(top_n, int(1 / share)))]
    return out


def case(work, name, addrs):
    """(f) in one setting: the fleet's top 3, the spread source's rank on
    each host (by its export; None when it exports no such series), the
    bound and the hosts without a bar (None when Prometheus has none)."""
    ranks = []
    series = result(os.path.join(work, name + ".series.json"))
    for a in addrs:
        srcs = [r["metric"]["source"] for r in sorted(
            (r for r in series if r["metric"]["instance"] == a), key=lambda r: -float(r["value"][1]))]
        ranks.append(srcs.index(SPREAD) + 1 if SPREAD in srcs else None)
    bound = result(os.path.join(work, name + ".bound.json"))
    without = result(os.path.join(work, name + ".without.json"))
    return (ranked(os.path.join(work, name + ".topk.json")), ranks,
            float(bound[0]["value"][1]) if bound else None,
            int(float(without[0]["value"][1])) if without else None)


def sent_f(work):
    """What (f)'s generators sent: of the spread source, and of everything."""
    spread_sent = fleet = 0.0
    for i in range(3):
        g = json.load(open(os.path.join(work, "f.%d.sent" % i)))
        spread_sent += g["per_source"].get(SPREAD, 0) / g["seconds"]
        fleet += sum(g["per_source"].values()) / g["seconds"]
    return spread_sent, fleet


def defaults(work, promql, addrs):
    """(f) with the defaults, as the README shows it."""
    top3, ranks, bound, _ = case(work, "f_default", addrs)
    spread_sent, fleet = sent_f(work)
    out = [promql, "", "source        PromQL"]
    for n, (src, got) in enumerate(top3, 1):
        line = "%-13s %6.0f" % (src, got)
        if src == SPREAD:
            where = ("#%d on every host" % ranks[0] if len(set(ranks)) == 1 and ranks[0]
                     else "#%s on hosts 1-3" % ", #".join(str(r or "-") for r in ranks))
            line += "   sent %.0f: %s, the fleet's #%d" % (spread_sent, where, n)
        out.append(line)
    out.append("the bound: %s pps (1 %% of %.1f kpps)" % (
        "%.0f" % bound if bound is not None else "none", fleet / 1000))
    return out


def min_share(work, promql, addrs):
    """(f) with the defaults beside --metrics-min-share 0, a column each."""
    spread_sent, fleet = sent_f(work)
    rows = [("", "defaults + --metrics", "--metrics-min-share 0")]
    cases = [case(work, name, addrs) for name in ("f_default", "f_off")]
    cells = {k: [] for k in ("spread", "other", "ranks", "bound", "without")}
    for top3, ranks, bound, without in cases:
        srcs = [src for src, _ in top3]
        got = dict(top3)
        if SPREAD in got:
            cells["spread"].append("#%d at %.0f" % (srcs.index(SPREAD) + 1, got[SPREAD]))
        elif not any(ranks):
            cells["spread"].append("in no host's export: in no sum")
        else:
            cells["spread"].append("not in the top 3")
        cells["other"].append("-" if not top3 or top3[0][0] == SPREAD
                              else "%s at %.0f" % top3[0])
        cells["ranks"].append(", ".join(str(r) if r else "-" for r in ranks))
        cells["bound"].append("%.0f" % bound if bound is not None else "none")
        cells["without"].append(str(without) if without is not None else "none")
    rows += [("%s (sent %.0f)" % (SPREAD, spread_sent), *cells["spread"]),
             ("fleet's #1 otherwise", *cells["other"]),
             ("rank on hosts 1, 2, 3", *cells["ranks"]),
             ("job:ratewall_fleet_sum_error_bound:pps", *cells["bound"]),
             ("job:ratewall_hosts_without_share_bar:count", *cells["without"])]
    width = [max(len(r[i]) for r in rows) for i in range(3)]
    out = [promql, ""]
    out += [("%-*s   %-*s   %s" % (width[0], r[0], width[1], r[1], r[2])).rstrip() for r in rows]
    out.append("the fleet: %.1f kpps sent, %.0f of it from %s" % (fleet / 1000, spread_sent, SPREAD))
    return out


def main(argv):
    if len(argv) >= 5 and argv[1] == "top":
        out = top(argv[2], argv[3], argv[4:])
    elif len(argv) >= 7 and argv[1] == "spread":
        out = spread(argv[2], argv[3], float(argv[4]), int(argv[5]), argv[6:])
    elif len(argv) >= 5 and argv[1] == "defaults":
        out = defaults(argv[2], argv[3], argv[4:])
    elif len(argv) >= 5 and argv[1] == "min-share":
        out = min_share(argv[2], argv[3], argv[4:])
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
