#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Renders dist/ratewall-dashboard.json, the Grafana dashboard of a ratewall fleet.

Every query goes to the Prometheus data source the `datasource` variable names
and keeps to the hosts and interfaces `instance` and `interface` pick; the
panels are laid out left to right, a row at a time, on Grafana's 24 columns.
tests/layout/test_dashboard.sh checks that the committed JSON is this script's
rendering, and tests/harness/check_dashboard.py checks its wiring (and, against
a Prometheus, that every query answers).

Usage: tools/dashboard.py [OUT]   (default: dist/ratewall-dashboard.json beside this script)
"""
import json
import os
import sys

DS = {"type": "prometheus", "uid": "${datasource}"}
HOST = 'instance=~"$instance"'
IFACE = 'instance=~"$instance",interface=~"$interface"'
RATE = "[$__rate_interval]"


def target(expr, legend="", instant=False):
    t = {"datasource": DS, "expr": expr, "legendFormat": legend, "range": not instant, "instant": instant}
    if instant:
        t["format"] = "table"
    return t


def per_iface_rate(family, legend="{{instance}} {{interface}}", scale=""):
    return target(f"{scale}sum by (instance, interface) (rate({family}{{{IFACE}}}{RATE}))", legend)


def per_host_rate(family, legend):
    return target(f"sum by (instance) (rate({family}{{{IFACE}}}{RATE}))", legend)


TIMESERIES_OPTIONS = {"legend": {"displayMode": "list", "placement": "bottom", "showLegend": True},
                      "tooltip": {"mode": "multi", "sort": "desc"}}
BARGAUGE_OPTIONS = {"displayMode": "basic", "orientation": "horizontal", "showUnfilled": True,
                    "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}}
STAT_OPTIONS = {"colorMode": "background", "graphMode": "none", "justifyMode": "auto", "textMode": "auto",
                "orientation": "auto", "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}}
TABLE_OPTIONS = {"showHeader": True, "cellHeight": "sm"}
OPTIONS = {"timeseries": TIMESERIES_OPTIONS, "bargauge": BARGAUGE_OPTIONS, "stat": STAT_OPTIONS,
           "table": TABLE_OPTIONS}
# 0 red, 1 green, said as down/up: the stat panels of a 0/1 gauge.
UP_DOWN = {"mappings": [{"type": "value", "options": {"0": {"text": "down", "color": "red", "index": 0},
                                                      "1": {"text": "up", "color": "green", "index": 1}}}],
           "thresholds": {"mode": "absolute", "steps": [{"color": "red", "value": None},
                                                        {"color": "green", "value": 1}]}}

# (title, type, width, height, unit, description, targets), in reading order.
PANELS = [
    ("Fleet top talkers: packets/s summed over the hosts", "timeseries", 12, 9, "pps",
     "Each key's rate summed over the hosts that export it (ratewall_source_packets_per_second): "
     "the fleet's heaviest senders, whichever host they hit. Each host exports every key over its "
     "--metrics-min-share (1 % by default), so a sum is short by at most the bound drawn beside them "
     "(the hosts' share bars summed), whatever the key's rank on each host; a host without a bar "
     "(RatewallShareBarMissing) is not bounded.",
     [target(f"topk(10, sum by (kind, key) (ratewall_source_packets_per_second{{{HOST}}}))",
             "{{kind}} {{key}}"),
      target(f"sum(ratewall_metrics_share_bar_packets_per_second{{{HOST}}})", "bound of a sum's error")]),
    ("Fleet top talkers now", "bargauge", 12, 9, "pps",
     "The ten heaviest keys across the hosts at the last scrape.",
     [target(f"topk(10, sum by (kind, key) (ratewall_source_packets_per_second{{{HOST}}}))",
             "{{kind}} {{key}}", instant=True)]),
    ("Received packets/s per host and interface", "timeseries", 8, 8, "pps",
     "What the XDP program saw (ratewall_received_packets_total).",
     [per_iface_rate("ratewall_received_packets_total")]),
    ("Passed packets/s per host and interface", "timeseries", 8, 8, "pps",
     "Handed on to the stack (ratewall_passed_packets_total; with --dry-run, all of them).",
     [per_iface_rate("ratewall_passed_packets_total")]),
    ("Dropped packets/s per host and interface", "timeseries", 8, 8, "pps",
     "Over a limit, denied, banned, or malformed with --malformed drop (ratewall_dropped_packets_total).",
     [per_iface_rate("ratewall_dropped_packets_total")]),
    ("Share of received packets dropped, per host", "timeseries", 8, 8, "percentunit",
     "Dropped over received; the RatewallHostDropping alert fires above 10 % for 5 minutes.",
     [target(f"sum by (instance) (rate(ratewall_dropped_packets_total{{{IFACE}}}{RATE})) / "
             f"sum by (instance) (rate(ratewall_received_packets_total{{{IFACE}}}{RATE}))", "{{instance}}")]),
    ("Drops by reason, per host", "timeseries", 8, 8, "pps",
     "Of the drops: ahead of a key's schedule (paced), refills that met on several CPUs, inserts that "
     "stalled, untracked keys over their share (capped), untracked keys held together as a crowd "
     "(a botnet bigger than the table: raise --max-flows).",
     [per_host_rate("ratewall_paced_drops_total", "{{instance}} paced"),
      per_host_rate("ratewall_met_drops_total", "{{instance}} met"),
      per_host_rate("ratewall_stalled_drops_total", "{{instance}} stalled"),
      per_host_rate("ratewall_capped_drops_total", "{{instance}} capped"),
      per_host_rate("ratewall_crowd_drops_total", "{{instance}} crowd")]),
    ("Received bits/s per host and interface", "timeseries", 8, 8, "bps",
     "ratewall_received_bytes_total, in bits.",
     [per_iface_rate("ratewall_received_bytes_total", scale="8 * ")]),
    ("Heavy prefixes: share of their host's window", "timeseries", 12, 8, "percentunit",
     "--levels: each heavy prefix's window packets net of its heavy more-specific prefixes, over the "
     "host's keyed window (the RatewallHeavyPrefix alert fires above 50 %).",
     [target(f"ratewall_prefix_packets{{{HOST}}} / on (job, instance) group_left "
             f"ratewall_window_packets{{{HOST}}}", "{{prefix}} on {{instance}}")]),
    ("Heavy prefixes across the fleet: window packets", "bargauge", 12, 8, "short",
     "--levels: each heavy prefix's window packets summed over the hosts that report it.",
     [target(f"topk(10, sum by (prefix, level) (ratewall_prefix_packets{{{HOST}}}))", "{{prefix}}",
             instant=True)]),
    ("Prefixes across the fleet: packets/s", "timeseries", 24, 8, "pps",
     "--levels with --metrics-min-share: every prefix over the share on some host, its whole traffic "
     "(not net of more-specific prefixes) summed over the hosts (ratewall_prefix_packets_per_second).",
     [target(f"topk(10, sum by (prefix, level) (ratewall_prefix_packets_per_second{{{HOST}}}))",
             "{{prefix}}")]),
    ("Limited and banned keys per host", "timeseries", 8, 8, "short",
     "How many of the keys each host exports had packets dropped in the window, and how many serve a "
     "--ban (the values of RatewallSourcesLimited and RatewallSourcesBanned).",
     [target(f"sum by (instance) (ratewall_source_limited{{{HOST}}})", "{{instance}} limited"),
      target(f"sum by (instance) (ratewall_source_banned{{{HOST}}})", "{{instance}} banned")]),
    ("Limited keys now", "table", 8, 8, "short",
     "Top-N keys over their limit at the last scrape, and where (ratewall_source_limited).",
     [target(f"max by (kind, key, instance) (ratewall_source_limited{{{HOST}}}) == 1", instant=True)]),
    ("Banned keys now", "table", 8, 8, "short",
     "Top-N keys serving a --ban at the last scrape, and where (ratewall_source_banned).",
     [target(f"max by (kind, key, instance) (ratewall_source_banned{{{HOST}}}) == 1", instant=True)]),
    ("Tick duration", "timeseries", 8, 8, "s",
     "What reading, wiping and ranking took each interval (ratewall_tick_duration_seconds).",
     [target("histogram_quantile(0.99, sum by (instance, le) "
             f"(rate(ratewall_tick_duration_seconds_bucket{{{HOST}}}{RATE})))", "{{instance}} p99"),
      target("histogram_quantile(0.5, sum by (instance, le) "
             f"(rate(ratewall_tick_duration_seconds_bucket{{{HOST}}}{RATE})))", "{{instance}} p50")]),
    ("Ticks seen in 3 minutes, and the interval", "timeseries", 8, 8, "short",
     "How often each host's tick timestamp changed over 3 minutes of scrapes: 0 is a loop that stalls "
     "while /metrics still answers (RatewallTickLate: 0 for 2 minutes, on hosts that tick at least "
     "once a minute). The host's clock is compared with itself only: one that is off does not show.",
     [target(f"changes(ratewall_last_tick_timestamp_seconds{{{HOST}}}[3m])", "{{instance}} ticks"),
      target(f"ratewall_interval_seconds{{{HOST}}}", "{{instance}} interval (s)")]),
    ("Targets up", "stat", 8, 8, "none",
     "Whether Prometheus scrapes each host (job ratewall, as dist/ratewall.rules.yml expects).",
     [target(f'up{{job="ratewall",{HOST}}}', "{{instance}}")]),
    ("Tracked keys", "timeseries", 8, 8, "short",
     "Keys counted exactly now (ratewall_tracked_sources); the rest are in the sketch.",
     [target(f"ratewall_tracked_sources{{{HOST}}}", "{{instance}}")]),
    ("Untracked share of the window", "timeseries", 8, 8, "percentunit",
     "Of the window's keyed packets, those counted in the sketch only: untracked sources, a spoofed "
     "flood's mark.",
     [target(f"ratewall_window_sketch_packets{{{HOST}}} / ratewall_window_packets{{{HOST}}}",
             "{{instance}}")]),
    ("Versions", "table", 8, 8, "none",
     "Which ratewall runs where (ratewall_build_info).",
     [target(f"count by (version) (ratewall_build_info{{{HOST}}})", instant=True)]),
    ("History database", "stat", 8, 8, "none",
     "--history: up after a good write, down while writes fail (ratewall_history_up).",
     [target(f"ratewall_history_up{{{HOST}}}", "{{instance}}")]),
    ("History writes", "timeseries", 16, 8, "short",
     "--history: windows written a second, and writes that failed (the window lost) a second.",
     [target(f"sum by (instance) (rate(ratewall_history_windows_written_total{{{HOST}}}{RATE}))",
             "{{instance}} written"),
      target(f"sum by (instance) (rate(ratewall_history_write_errors_total{{{HOST}}}{RATE}))",
             "{{instance}} errors")]),
    ("BGP speaker", "stat", 8, 8, "none",
     "--bgp: 1 while the speaker answers with a session established (ratewall_bgp_speaker_up).",
     [target(f"ratewall_bgp_speaker_up{{{HOST}}}", "{{instance}}")]),
    ("BGP routes", "timeseries", 8, 8, "short",
     "--bgp: routes the speaker holds from ratewall (flow rules and blackholes), and those wanted "
     "beyond --bgp-max, not announced.",
     [target(f"ratewall_bgp_routes_announced{{{HOST}}}", "{{instance}} announced"),
      target(f"ratewall_bgp_routes_over_max{{{HOST}}}", "{{instance}} over --bgp-max")]),
    ("BGP failures and --on-event", "timeseries", 8, 8, "short",
     "Commands to the BGP speaker that failed a second; --on-event commands a second by how they "
     "ended (not_run: over --on-event-rate or the queue).",
     [target(f"sum by (instance) (rate(ratewall_bgp_failures_total{{{HOST}}}{RATE}))",
             "{{instance}} bgp failed"),
      target(f"sum by (instance, result) (rate(ratewall_on_event_commands_total{{{HOST}}}{RATE}))",
             "{{instance}} on-event {{result}}")]),
    ("Ratewall alerts", "table", 24, 6, "none",
     "The alerts of dist/ratewall.rules.yml that are pending or firing now.",
     [target('sum by (alertname, alertstate, severity) (ALERTS{alertname=~"Ratewall.*"})', instant=True)]),
]


def variable(name, label, query):
    return {"type": "query", "name": name, "label": label, "datasource": DS, "query": query, "definition": query,
            "multi": True, "includeAll": True, "allValue": ".*", "current": {}, "options": [], "refresh": 2,
            "sort": 1, "regex": "", "hide": 0}


TEMPLATING = [
    {"type": "datasource", "name": "datasource", "label": "Prometheus", "query": "prometheus", "current": {},
     "options": [], "refresh": 1, "regex": "", "hide": 0},
    variable("instance", "Host", "label_values(ratewall_build_info, instance)"),
    variable("interface", "Interface", 'label_values(ratewall_received_packets_total{instance=~"$instance"}, interface)'),
]


def panels():
    out, x, y, row_h = [], 0, 0, 0
    for n, (title, kind, w, h, unit, description, targets) in enumerate(PANELS, 1):
        if x + w > 24:  # the next row starts under the tallest panel of this one
            x, y, row_h = 0, y + row_h, 0
        defaults = {"unit": unit}
        if kind == "stat":
            defaults.update(UP_DOWN)
        out.append({"id": n, "type": kind, "title": title, "description": description, "datasource": DS,
                    "gridPos": {"x": x, "y": y, "w": w, "h": h},
                    "fieldConfig": {"defaults": defaults, "overrides": []}, "options": OPTIONS[kind],
                    "targets": [dict(t, refId=chr(ord("A") + i)) for i, t in enumerate(targets)]})
        x, row_h = x + w, max(row_h, h)
    return out


def dashboard():
    return {
        "uid": "ratewall-fleet",
        "title": "ratewall: fleet",
        "description": "ratewall's /metrics across hosts: top talkers, passes and drops, heavy prefixes, limited "
                       "and banned keys, the loader's tick, --history, --bgp and --on-event (docs/operations/fleet.md).",
        "tags": ["ratewall", "xdp"],
        "schemaVersion": 39,
        "version": 1,
        "editable": True,
        "graphTooltip": 1,
        "timezone": "browser",
        "time": {"from": "now-1h", "to": "now"},
        "refresh": "30s",
        "annotations": {"list": [{"builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"},
                                  "enable": True, "hide": True, "iconColor": "rgba(0, 211, 255, 1)",
                                  "name": "Annotations & Alerts", "type": "dashboard"}]},
        "templating": {"list": TEMPLATING},
        "panels": panels(),
    }


def render():
    return json.dumps(dashboard(), indent=2) + "\n"


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                             "dist", "ratewall-dashboard.json")
    with open(out, "w", encoding="utf-8") as f:
        f.write(render())
