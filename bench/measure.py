# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The measurements beside throughput (throughput.py): the program's cost in
L1, kernel memory, the userspace tick, the tick under a flood, accuracy on
the veth, decisions against an exact limiter, and one TCP flow under a cap."""
import json
import os
import re
import subprocess
import time

import rig
from cases import (ACCURACY_SECONDS, DECISION_FACTORS, FACTORS, LIMIT_PPS, QUICK, TCP_CAP, TCP_CAP_BPS,
                   TICK_FLOWS)
from rig import NCPUS, Ratewall, log, sh


# --- tick under a flood of 1 Mi offered sources per window ----------------------

def run_live_tick(tb):
    """ratewall's own tick time (JSON tick_ms) and report gaps while a spoofed
    flood offers over a million distinct sources per 1 s window."""
    res = []
    seconds = 6 if QUICK else 10
    # The stack would cap the flood well below a million packets a second: with
    # IPv6 off on the receiver it drops them on arrival, after XDP.
    sh(tb.rcv_cmd("sysctl", "-qw", f"net.ipv6.conf.{tb.rx}.disable_ipv6=1"))
    for max_flows in (None, 1048576):
        args = ["--pps", "10k", "--interval", "1s"] + (["--max-flows", max_flows] if max_flows else [])
        rw = Ratewall(tb, *args, out=True)
        try:
            g = tb.gen("--ipv6", "--ipv6-net", "--src", "2001:db8::1", "--dist", "random", "--sources", 4294967295,
                       "--seed", 11, "--duration", f"{seconds}s", timeout=120)
            time.sleep(1.2)
        finally:
            rw.stop()
        lines = rw.json_lines()
        ticks = [l["tick_ms"] for l in lines]
        gaps = [b["ts"] - a["ts"] for a, b in zip(lines, lines[1:])]
        r = {"max_flows": max_flows or "default", "offered_pps": round(g["pps"]),
             "distinct_per_window": round(g["pps"]),  # a 32-bit random space: nearly all distinct
             "reports": len(lines), "tick_ms_max": max(ticks) if ticks else None,
             "tick_ms_median": sorted(ticks)[len(ticks) // 2] if ticks else None,
             "max_report_gap_s": round(max(gaps), 3) if gaps else None,
             "max_tracked": max(l["totals"]["tracked_flows"] for l in lines) if lines else None}
        res.append(r)
        log(f"  tick under a flood of {r['offered_pps']} new sources/s, max-flows {r['max_flows']}: "
            f"max {r['tick_ms_max']} ms, median {r['tick_ms_median']} ms, largest report gap "
            f"{r['max_report_gap_s']} s, at most {r['max_tracked']} tracked")
    sh(tb.rcv_cmd("sysctl", "-qw", f"net.ipv6.conf.{tb.rx}.disable_ipv6=0"))
    return res


# --- 5-6: per-packet program cost ---------------------------------------------

def run_progcost():
    """One frame in L1 through the program, repeated: its fixed cost per packet. The
    first row is what `ratewall run` does by default (1 s window, 10 slots: the
    coarse clock, read once a jiffy); the precise clock is for slots under 80 ms."""
    out = {}
    rounds = "3" if QUICK else "7"
    configs = [("slots_10_coarse_defaults", ["-C"]), ("slots_10_precise", []),
               ("slots_2_coarse", ["-C", "-s", "2"]), ("slots_32_precise", ["-s", "32"]),
               ("slots_10_coarse_map_1Mi", ["-C", "-k", "1048576"]), ("slots_10_no_clock", ["-c"]),
               # The defaults with each other key kind (--key): what building and hashing it costs.
               ("slots_10_coarse_key_dst", ["-C", "-K", "dst"]),
               ("slots_10_coarse_key_pair", ["-C", "-K", "pair"]),
               ("slots_10_coarse_key_flow", ["-C", "-K", "flow"]),
               # --key src with other kinds ranked beside it (--rank): the price of each.
               ("slots_10_coarse_rank_dst", ["-C", "-X", "dst"]),
               ("slots_10_coarse_rank_dst_pair", ["-C", "-X", "dst,pair"]),
               # 10 000 rules none of which covers the frame, then with rules with a match that
               # cover every address but the frame does not meet: what reading its L4 header costs.
               ("slots_10_coarse_rules_10k", ["-C", "-R", "10000"]),
               ("slots_10_coarse_rules_10k_matches", ["-C", "-R", "10000", "-q"])]
    dispatcher = dispatcher_object()
    for key, args in configs:
        if QUICK and key not in ("slots_10_coarse_defaults", "slots_10_precise", "slots_10_coarse_key_flow",
                                 "slots_10_coarse_rank_dst_pair"):
            continue
        if key == "slots_10_coarse_defaults" and dispatcher:
            args = [*args, "-D", dispatcher]  # libxdp's dispatcher beside the defaults
        out[key] = json.loads(sh([f"{rig.BUILD}/progcost", "-n", rounds, *args], timeout=300))
    return out


def dispatcher_object():
    """libxdp's dispatcher object, where libxdp itself looks for it
    (LIBXDP_OBJECT_PATH, else its library's bpf/ directory), or None."""
    dirs = [os.environ["LIBXDP_OBJECT_PATH"]] if os.environ.get("LIBXDP_OBJECT_PATH") else []
    libdir = subprocess.run(["pkg-config", "--variable=libdir", "libxdp"], capture_output=True,
                            text=True).stdout.strip()
    dirs += [os.path.join(libdir, "bpf")] if libdir else []
    return next((p for p in (os.path.join(d, "xdp-dispatcher.o") for d in dirs) if os.path.exists(p)), None)


def run_memory():
    """What `ratewall memory` plans at the defaults on a 64-CPU server (it plans,
    loads nothing; test_memory checks the plan against the kernel's own figure)."""
    out = sh([f"{rig.BUILD}/ratewall", "memory", "--cpus", "64"])
    total = next(l for l in out.splitlines() if l.startswith("total "))
    value, unit = total.split()[1:3]
    mib = float(value) * {"B": 1 / 2**20, "KiB": 1 / 1024, "MiB": 1, "GiB": 1024}[unit]
    return {"cpus": 64, "mib": round(mib, 1), "plan": out}


# --- 7: userspace tick ----------------------------------------------------------

def run_tick():
    res = []
    for flows in TICK_FLOWS:
        r = json.loads(sh([f"{rig.BUILD}/tickbench", str(flows), "3" if QUICK else "5"], timeout=300))
        res.append(r)
        log(f"  tick over {flows} flows: {r['tick_ms_median']} ms, peak RSS {r['peak_rss_kib']} KiB; "
            f"ratewall top's pass: sources {r['view_sources_ms_median']} ms, /24s {r['view_v4_24_ms_median']} ms; "
            f"a run --tui tick {r['tick_fed_view_ms_median']} ms")
        for h in r["history"]:
            extra = h["tick_with_history_ms"] - h["tick_ms"]
            h["rows_per_s"] = round(h["rows"] / (extra / 1e3)) if extra > 0 else None
            log(f"    --history, top {h['top']}: tick {h['tick_ms']} ms without, "
                f"{h['tick_with_history_ms']} ms with ({h['rows']} rows a window, "
                f"{h['rows_per_s']} rows/s written)")
    return res


# --- 8: accuracy ------------------------------------------------------------------

def nft_counter(tb, src):
    rules = f"""table netdev rwbench_obs {{
	counter seen {{}}
	chain in {{
		type filter hook ingress device "{tb.rx}" priority 0; policy accept;
		ip saddr {src} counter name seen
	}}
}}"""
    sh(tb.rcv_cmd("nft", "-f", "-"), input=rules)


def nft_seen(tb):
    out = sh(tb.rcv_cmd("nft", "list", "counter", "netdev", "rwbench_obs", "seen"))
    return int(re.search(r"packets (\d+)", out).group(1))


def run_accuracy(tb):
    """Admitted rate over an exact span of kernel receive timestamps (AF_PACKET
    observer), cross-checked against an nft counter that must see the same."""
    res = []
    nft_counter(tb, "198.18.0.1")
    for spread in (False, True):
        for factor in FACTORS:
            cpus = NCPUS if spread else 1
            try:
                rw = Ratewall(tb, "--pps", LIMIT_PPS, "--window", "1s", "--slots", "10")
                seen0 = nft_seen(tb)
                sink = subprocess.Popen(tb.rcv_cmd(f"{rig.BUILD}/rwsink", "--dev", tb.rx, "--duration",
                                                   f"{ACCURACY_SECONDS + 5}s", "--interval", "900ms",
                                                   # At f x the limit a flood is admitted during the
                                                   # first 1/f of each window-long period after the
                                                   # first admission; edges at 3/4 of a period lie in
                                                   # the quiet part for every f >= 2, so jitter cannot
                                                   # cut an admission phase in two.
                                                   "--span-from", "2750ms", "--span", f"{ACCURACY_SECONDS}s"),
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                time.sleep(0.3)
                g = tb.gen("--rate", factor * LIMIT_PPS, "--cpus", cpus,
                           "--duration", f"{ACCURACY_SECONDS + 4}s", timeout=60)  # past the span
                s = json.loads(sink.communicate(timeout=60)[0])["sources"]["198.18.0.1"]
                seen = nft_seen(tb) - seen0
                rw.stop()
                admitted = s["in_span"] * 1e9 / s["span_ns"]
                r = {"offered_x": factor, "cpus": cpus, "offered_pps": round(g["pps"]),
                     "admitted_pps": round(admitted, 1),
                     "error_pct": round(100 * (admitted - LIMIT_PPS) / LIMIT_PPS, 2),
                     "worst_900ms": s["max_in_interval"], "limit_per_window": LIMIT_PPS,
                     "observer_total": s["packets"], "nft_total": seen}
                log(f"  {factor:>3d}x the limit on {cpus} CPU(s): admitted {admitted:9.1f} pps "
                    f"({r['error_pct']:+.2f} %), worst 900 ms {r['worst_900ms']}, "
                    f"observer {s['packets']} / nft {seen}")
            except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
                r = {"offered_x": factor, "cpus": cpus, "error": str(e)[:300]}
                log(f"  accuracy {factor}x on {cpus} CPU(s): error: {e}")
            res.append(r)
    sh(tb.rcv_cmd("nft", "delete", "table", "netdev", "rwbench_obs"), check=False)
    return res



def run_tcp(tb, rtt):
    """One TCP flow (iperf3, the kernel's stacks in both namespaces) through a
    10 Mbit/s cap: ratewall at its defaults, ratewall with the window alone
    (--burst window: the admission before the schedule) and an nft limit, for each
    congestion control. Goodput over the whole run and after its first 2 s,
    retransmits. `rtt` names the testbed's round trip: both ends on one veth
    (some 50 us), or through the delay line."""
    seconds = 5 if QUICK else 10
    res = []
    sh(["ip", "-n", tb.snd, "addr", "add", "198.18.0.1/24", "dev", tb.tx])
    sh(["ip", "-n", tb.rcv, "addr", "add", "198.18.0.254/24", "dev", tb.rx])
    sh(tb.rcv_cmd("ethtool", "-K", tb.rx, "gro", "off"), check=False)
    nft_limit = f"""table netdev rwbench_limit {{
	chain in {{
		type filter hook ingress device "{tb.rx}" priority 0; policy accept;
		ip saddr 198.18.0.1 limit rate over 1250 kbytes/second drop
	}}
}}"""
    for cc in ("cubic", "bbr"):
        for limiter in ("ratewall", "ratewall_window", "nft_limit"):
            rw = None
            try:
                if limiter == "nft_limit":
                    sh(tb.rcv_cmd("nft", "-f", "-"), input=nft_limit)
                else:
                    extra = ["--burst", "window"] if limiter == "ratewall_window" else []
                    rw = Ratewall(tb, "--bps", TCP_CAP, *extra)
                srv = subprocess.Popen(tb.rcv_cmd("timeout", str(seconds + 15), "iperf3", "-s", "-1", "-B",
                                                  "198.18.0.254", "-i", "1", "-J"),
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                time.sleep(0.5)
                cli = json.loads(sh(["ip", "netns", "exec", tb.snd, "timeout", str(seconds + 10), "iperf3",
                                     "-c", "198.18.0.254", "-B", "198.18.0.1", "-t", str(seconds), "-C", cc,
                                     "-J"], timeout=seconds + 20))
                server = json.loads(srv.communicate(timeout=30)[0])
                iv = [i["sum"] for i in server["intervals"] if i["sum"]["start"] >= 1.99]
                steady = sum(i["bytes"] for i in iv) * 8 / max(1e-9, sum(i["seconds"] for i in iv))
                whole = server["end"]["sum_received"]["bits_per_second"]
                r = {"cc": cc, "limiter": limiter, "seconds": seconds, "rtt": rtt,
                     "goodput_mbps": round(whole / 1e6, 2), "steady_mbps": round(steady / 1e6, 2),
                     "cap_pct": round(100 * whole / TCP_CAP_BPS, 1),
                     "steady_cap_pct": round(100 * steady / TCP_CAP_BPS, 1),
                     "retransmits": cli["end"]["sum_sent"].get("retransmits", 0)}
                log(f"  {rtt:6s} {cc:5s} {limiter:16s}: {r['goodput_mbps']:6.2f} Mbit/s ({r['cap_pct']:5.1f} % of the cap), "
                    f"{r['steady_mbps']:6.2f} after 2 s, {r['retransmits']} retransmits")
            except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
                r = {"cc": cc, "limiter": limiter, "rtt": rtt, "error": str(e)[:300]}
                log(f"  tcp {rtt} {cc} {limiter}: error: {e}")
            finally:
                if rw:
                    rw.stop()
                sh(tb.rcv_cmd("nft", "delete", "table", "netdev", "rwbench_limit"), check=False)
            res.append(r)
    return res


def run_decisions():
    res = []
    seconds = "5s" if QUICK else "10s"
    for spread in (False, True):
        for factor in DECISION_FACTORS:
            args = [f"{rig.BUILD}/decisions", "-l", "1000", "-f", factor, "-t", seconds]
            if spread:
                args.append("-s")
            r = json.loads(sh(args, timeout=300))
            res.append(r)
            log(f"  decisions at {factor}x on {r['spread_cpus']} CPU(s): {r['wrong_pct']:.4f} % wrong "
                f"vs an exact sliding log; admitted {r['admitted']} vs {r['reference_admitted']}")
    return res


