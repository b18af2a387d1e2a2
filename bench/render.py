# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""How a result of `make bench` reads: the plain table it prints (table), and
the page docs/performance.md (page), both from the result alone, so a saved
run renders the same at any time."""
import json
import os

import results as runs
from cases import KEY_CASES, LIMIT_PPS, MULTI_CASE, PACED_CASE, PACED_LIMIT_BEFORE, RANK_CASES, RANK_TOY, ROWS_ALL, TCP_DELAY, TOYS, accuracy_seconds
from targets import (MEMORY_TARGET_MIB, PROGCOST_TARGET_NS, all_checks, by_case, memory_check, outcome,
                     progcost_check, row_checks)


def machine_line(results):
    m = results["machine"]
    return (f"{m['cpu_model']}, {m['cores']} cores, {m['memory_gib']} GiB, Linux {m['kernel']}"
            + (" (BENCH_QUICK)" if results["quick"] else ""))


def targets_cell(key, by, floor):
    """The row's targets, each as 'target: got met|MISSED'."""
    return "; ".join(f"{c['what']}: {c['got']} {outcome(c)}".rstrip() for c in row_checks(key, by, floor))


def throughput_lines(results):
    """The throughput rows beside their floors, toys and competitors, and the in-situ costs."""
    by = by_case(results)
    lines = ["Throughput, 64-byte frames, one core (generator + receiver), Mpps; ratio to the row's floor "
             "(XDP drop-all for dropped traffic, XDP pass-all for passed traffic); +ns: cost per packet "
             "beyond the floor (1/Mpps - 1/floor Mpps), i.e. the case's own work. Beside ratewall, the "
             "least state a per-source limiter keeps: the parse alone, then 8 B and 64 B a source in a "
             "per-CPU array indexed by a hash of the source (64 Ki entries; 1 Mi for the spoofed and 1 Mi "
             "rows), dropping or passing as the row's limiters do:",
             "",
             "| traffic | floor | parse only | 8 B a source | 64 B a source | ratewall | ratewall, 10 000 rules "
             "| ratewall, another --key | nft meter | iptables hashlimit | target |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]

    def cell(r, floor):
        if "mpps" not in r:
            return "error" if r else ""
        c = f"{r['mpps']:.2f}"
        if floor and r is not floor:
            c += f" ({r['mpps'] / floor['mpps']:.2f}x, +{1e3 / r['mpps'] - 1e3 / floor['mpps']:.0f} ns)"
        if r.get("dropped_by_case") is not None and r.get("verdict") == "drop" and r["dropped_by_case"] < r["sent"]:
            c += f" dropped only {100 * r['dropped_by_case'] / r['sent']:.1f} %"
        return c

    for key, label, _, floor_case, verdict, cases in ROWS_ALL:
        if (key, floor_case) not in by:
            continue
        floor = by[(key, floor_case)]
        for r in (by.get((key, c), {}) for c in cases):
            r["verdict"] = verdict
        other = next((c for c in KEY_CASES if (key, c) in by), None)
        other_cell = f"--key {KEY_CASES[other]}: {cell(by[(key, other)], floor)}" if other else ""
        row = [cell(by.get((key, c), {}), floor) for c in (*TOYS, "ratewall", "ratewall_rules")]
        row += [other_cell] + [cell(by.get((key, c), {}), floor) for c in ("nft_meter", "iptables_hashlimit")]
        lines.append(f"| {label} ({verdict}) | {floor_case.replace('_', ' ')} {cell(floor, None)} | "
                     + " | ".join(row) + f" | {targets_cell(key, by, floor)} |")

    paced_limit = " ".join(results.get("paced_limit", PACED_LIMIT_BEFORE))

    def variant(case):
        if case == PACED_CASE:
            return f", {paced_limit}"
        if case in KEY_CASES:
            return f", --key {KEY_CASES[case]}"
        return f", --rank {','.join(RANK_CASES[case])}" if case in RANK_CASES else ""

    paced = [f"{r['row']} {r['mpps']:.2f} Mpps ({r['mpps'] / by[(r['row'], 'ratewall')]['mpps']:.2f}x `ratewall`"
             + (f", {100 * r['dropped_by_case'] / r['sent']:.3f} % dropped" if r.get("dropped_by_case") is not None
                else "") + ")"
             for r in results["throughput"] if r.get("case") == PACED_CASE and "mpps" in r
             and "mpps" in by.get((r["row"], "ratewall"), {})]
    if paced:
        lines += ["", f"ratewall over a packet rate (`{paced_limit}`, paced: each source admitted at its "
                  "rate and refused by its schedule in between, as a source over its limit mostly is), beside the "
                  "`ratewall` case (`--bps 8`: every frame over the window's whole budget): " + ", ".join(paced)]
    insitu = [f"{r['prog_ns_in_situ']} ns ({r['row']}{variant(r['case'])})" for r in results["throughput"]
              if r.get("case") in ("ratewall", PACED_CASE, *KEY_CASES, *RANK_CASES) and "prog_ns_in_situ" in r]
    toys_insitu = [f"{r['prog_ns_in_situ']} ns ({r['row']}{', a line more for dst and for pair' if r['case'] == RANK_TOY else ''})"
                   for r in results["throughput"] if r.get("case") in ("toy_d64", RANK_TOY) and "prog_ns_in_situ" in r]
    lines += ["", "(Measured with kernel.bpf_stats_enabled off, after a stats-on run that checked every "
              "frame arrived. Multi-source rows are warmed in insertion order and measured in another "
              "order, except the round-robin row, kept to show how much insertion order flatters.)"]
    if insitu:
        lines.append("ratewall program in situ (kernel.bpf_stats_enabled): " + ", ".join(insitu))
    if toys_insitu:
        lines.append("64 B toy in situ: " + ", ".join(toys_insitu))
    multi, alone = by.get(("64k_over", MULTI_CASE), {}), by.get(("64k_over", "ratewall"), {})
    if "skipped" in multi:
        lines.append(f"ratewall in libxdp's dispatcher (`--xdp-mode multi`, 64 Ki row): skipped: {multi['skipped']}")
    elif "mpps" in multi and "mpps" in alone:
        lines.append(f"ratewall in libxdp's dispatcher (`--xdp-mode multi`, 64 Ki row): {multi['mpps']:.2f} Mpps, "
                     f"+{1e3 / multi['mpps'] - 1e3 / alone['mpps']:.0f} ns a packet beyond ratewall alone"
                     + (f"; in situ {multi['prog_ns_in_situ']} ns" if "prog_ns_in_situ" in multi else ""))
    pc = results.get("progcost", {}).get("slots_10_coarse_defaults", {})
    if "xdp_dispatcher_ns" in pc:
        lines.append(f"libxdp's dispatcher itself, one slot enabled, one frame in L1 (`progcost -D`): "
                     f"{pc['xdp_dispatcher_ns']:.0f} ns against drop-all's {pc['xdp_drop_all_ns']:.0f}: "
                     f"**{pc['xdp_dispatcher_over_floor_ns']:+.0f} ns a packet** for its configuration read, the call "
                     "into the slot and the chain-call check; a kernel that refuses extension programs still runs "
                     "the dispatcher, with its stub in the slot where ratewall would be")
    return lines


def memory_lines(results):
    """Kernel memory, and the loader's tick under a flood of new sources."""
    lines = []
    if results.get("memory"):
        mem = results["memory"]
        c = memory_check(results)
        lines += ["", f"Kernel memory at the defaults on 64 CPUs (`ratewall memory --cpus 64`): "
                  f"{mem['mib']:.1f} MiB; target <= {MEMORY_TARGET_MIB} MiB: {outcome(c)}"]
    if results.get("live_tick"):
        lines += ["", "Loader tick while a spoofed flood offers about a million new sources per 1 s window "
                  "(ratewall's own tick_ms; report gaps from its JSON timestamps):", "",
                  "| --max-flows | offered new sources/s | tick median ms | tick max ms | largest report gap s "
                  "| most tracked |", "|---|---|---|---|---|---|"]
        for t in results["live_tick"]:
            lines.append(f"| {t['max_flows']} | {t['offered_pps']} | {t['tick_ms_median']} | {t['tick_ms_max']} | "
                         f"{t['max_report_gap_s']} | {t['max_tracked']} |")
    return lines


def progcost_lines(results):
    """The program's cost a packet, one frame in L1."""
    lines = []
    lines += ["", "Per-packet program cost, one 64-byte frame in L1 (bpf_prog_test_run_opts, repeat 1M, "
              "programs loaded together and measured in turn, median of the rounds, ns). The first row is "
              "`ratewall run`'s default (1 s window in 10 slots: the coarse clock, read once a jiffy); the "
              "precise clock serves slots under 80 ms:", "",
              "| config | drop-all | sketch only (untracked) | tracked, count only | tracked, under limit "
              f"| tracked, over limit (drop) | target <= {PROGCOST_TARGET_NS} ns |", "|---|---|---|---|---|---|---|"]
    for key, pc in results["progcost"].items():
        c = {x["case"]: x["ns"] for x in pc["ratewall"]}
        target = f"worst {max(c.values()):.0f}: {outcome(progcost_check(results))}" if key.endswith("defaults") else ""
        lines.append(f"| {key} | {pc['xdp_drop_all_ns']:.0f} | {c.get('ratewall_sketch_only', 0):.0f} | "
                     f"{c['ratewall_count_only']:.0f} | {c['ratewall_under_limit']:.0f} | "
                     f"{c['ratewall_over_limit']:.0f} | {target} |")
    return lines


def tick_lines(results):
    """The userspace tick over N tracked flows, without and with --history."""
    lines = []
    lines += ["", "Userspace tick over N tracked flows (read, join hot records and history, rank into a "
              "top-10), one core; the terminal view's read-only pass over the same table (`ratewall "
              "top`: sources with sparklines, then the /24s), and a `run --tui` tick (the tick's own "
              "scan feeds the view):", "",
              "| tracked flows | tick median ms | peak RSS MiB | top pass, sources ms | top pass, /24s ms "
              "| run --tui tick ms |", "|---|---|---|---|---|---|"]
    for t in results["tick"]:
        lines.append(f"| {t['flows']} | {t['tick_ms_median']:.1f} | {t['peak_rss_kib'] / 1024:.1f} | "
                     f"{t.get('view_sources_ms_median', 0):.1f} | {t.get('view_v4_24_ms_median', 0):.1f} | "
                     f"{t.get('tick_fed_view_ms_median', 0):.1f} |")
    lines += ["", "The same tick ranking into a top-N, without and with `--history` writing its "
              "report (window totals, one row a listed key) into an SQLite file, WAL, one "
              "transaction a window:", "",
              "| tracked flows | top-N | tick ms | tick with --history ms | rows a window | "
              "rows/s written |", "|---|---|---|---|---|---|"]
    for t in results["tick"]:
        for h in t.get("history", []):
            lines.append(f"| {t['flows']} | {h['top']} | {h['tick_ms']:.2f} | "
                         f"{h['tick_with_history_ms']:.2f} | {h['rows']} | {h.get('rows_per_s')} |")
    return lines


def accuracy_lines(results):
    """Admitted rates on the veth."""
    lines = []
    seconds = accuracy_seconds(results["quick"])
    lines += ["", f"Accuracy on the veth, limit {LIMIT_PPS} pps, admitted rate over "
              f"exactly {seconds} s of receive timestamps from 2.75 s into the flood (AF_PACKET "
              f"observer, its total checked against an nft counter); worst = most admitted in any "
              f"900 ms, (N-1)/N of the 1 s window:", "",
              "| offered | CPUs | admitted pps | error | worst 900 ms |", "|---|---|---|---|---|"]
    for a in results["accuracy"]:
        if "error" in a:
            lines.append(f"| {a['offered_x']}x | {a['cpus']} | error | | |")
        else:
            lines.append(f"| {a['offered_x']}x | {a['cpus']} | {a['admitted_pps']:.1f} | "
                         f"{a['error_pct']:+.2f} % | {a['worst_900ms']} |")
    return lines


def decisions_lines(results):
    """Decisions against an exact sliding-log limiter."""
    lines = []
    lines += ["", "Decisions against an exact sliding-log limiter on the same timestamps "
              "(Poisson arrivals, 1000 per 1 s window, 10 slots):", "",
              "| offered | CPUs | wrong decisions | admitted / reference | most in any window |",
              "|---|---|---|---|---|"]
    for d in results["decisions"]:
        lines.append(f"| {d['offered_x']}x | {d['spread_cpus']} | {d['wrong_pct']:.3f} % | "
                     f"{d['admitted']} / {d['reference_admitted']} | {d['max_in_window']} |")
    return lines


def tcp_lines(results):
    """One TCP flow through a cap."""
    lines = []
    if results.get("tcp"):
        t0 = next((t for t in results["tcp"] if "seconds" in t), {"seconds": "?"})
        lines += ["", f"One TCP flow (iperf3, {t0['seconds']} s) through a 10 Mbit/s cap counted in frame "
                  "bytes, with both ends on one veth (a round trip of some 50 us) and through a delay "
                  f"line ({TCP_DELAY} each way, tests/harness/rwdelay.c); goodput is payload "
                  "(at most 95.6 % of frame bytes with 1448-byte segments): ratewall at its defaults, "
                  "ratewall with the window alone (`--burst window`, the admission before pacing), "
                  "an nft `limit rate over 1250 kbytes/second`:", "",
                  "| round trip | congestion control | limiter | goodput Mbit/s | % of the cap | after 2 s | "
                  "retransmits |", "|---|---|---|---|---|---|---|"]
        for t in results["tcp"]:
            rtt = t.get("rtt", "50 us")
            if "error" in t:
                lines.append(f"| {rtt} | {t['cc']} | {t['limiter']} | error | | | |")
            else:
                lines.append(f"| {rtt} | {t['cc']} | {t['limiter']} | {t['goodput_mbps']:.2f} | "
                             f"{t['cap_pct']:.1f} | {t['steady_mbps']:.2f} | {t['retransmits']} |")
    return lines


SECTIONS = [throughput_lines, memory_lines, progcost_lines, tick_lines, accuracy_lines, decisions_lines,
            tcp_lines]


def figures(results):
    """Every table of a result, in the order the benchmark measures them (Markdown)."""
    lines = []
    for section in SECTIONS:
        lines += section(results)
    return "\n".join(lines).strip("\n")


def table(results):
    """What `make bench` prints: a heading line and every figure."""
    return f"ratewall benchmark, {results['date']}: {machine_line(results)}\n\n{figures(results)}"


HOW_TO_READ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "how_to_read.md")


def targets_lines(results):
    """Every target the run has figures for, met or missed, as one table."""
    checks = all_checks(results)
    scored = [c for _, c in checks if c["met"] is not None]
    lines = [f"{sum(c['met'] for c in scored)} of {len(scored)} targets met in this run.", "",
             "| where | target | this run | |", "|---|---|---|---|"]
    for where, c in checks:
        lines.append(f"| {where} | {c['what']} | {c['got']} | {outcome(c)} |")
    return lines


def page(results, name):
    """docs/performance.md for the run called name (results.run_id)."""
    with open(HOW_TO_READ) as f:
        how = f.read().strip()
    minutes = f", in {results['seconds'] / 60:.0f} minutes" if "seconds" in results else ""
    intro = [
        "# Performance", "",
        "<!-- Generated by `python3 bench/bench.py --report` from bench/results/latest.json "
        "(bench/how_to_read.md holds the fixed part): do not edit; `make test` checks the two agree. -->", "",
        f"The latest run of `make bench`: **{name}** (`bench/results/{name}.json`, copied to "
        f"`bench/results/latest.json`), {results['date']}{minutes}, on {machine_line(results)}.",
    ]
    parts = ["\n".join(intro), how, "## Targets\n\n" + "\n".join(targets_lines(results)),
             "## Figures\n\n" + figures(results)]
    if os.path.exists(runs.DISPATCHER):
        with open(runs.DISPATCHER) as f:
            parts.append("\n".join(dispatcher_lines(json.load(f))))
    return "\n\n".join(parts) + "\n"


def dispatcher_lines(d):
    """The section on libxdp's dispatcher, from bench/results/dispatcher.json (bench/dispatcher.py)."""
    m, med = d["machine"], d["median"]
    host = f" on a host's {d['host_cpu']}" if d.get("host_cpu") else ""
    lines = ["## libxdp's dispatcher (`--xdp-mode multi`)", "",
             f"ratewall alone on the interface and alone in libxdp's dispatcher, the row \"{d['label']}\" "
             f"interleaved in {len(d['rounds'])} rounds (each round in the other order; each figure the median "
             f"of {d['runs_per_case']} runs of {d['packets_per_run']} frames), {d['date']}, "
             f"by `bench/dispatcher.py` (`bench/results/dispatcher.json`): Linux {m['kernel']}, "
             f"{m['cores']} CPUs ({m['cpu_model']}){host}. "
             "The dispatcher runs first and calls ratewall's program from its slot: what that costs a packet "
             "is 1/Mpps in the dispatcher - 1/Mpps alone, and in situ (kernel.bpf_stats_enabled) the "
             "dispatcher's run time, which holds ratewall's, less ratewall's alone. `make bench` measures "
             "the same case once (`ratewall_multi`) where the kernel allows extension programs, and skips "
             "it where not ([usage](usage.md#beside-other-xdp-programs)).", "",
             "| round | order | alone Mpps | in the dispatcher Mpps | cost a packet ns | in situ: alone ns "
             "| in situ: dispatcher ns |", "|---|---|---|---|---|---|---|"]
    for r in d["rounds"]:
        a, x = r["ratewall"], r[MULTI_CASE]
        lines.append(f"| {r['round']} | {', '.join('dispatcher' if c == MULTI_CASE else 'alone' for c in r['order'])} "
                     f"| {a['mpps']:.3f} | {x['mpps']:.3f} | {r['cost_ns']:+.0f} | {a.get('prog_ns_in_situ')} "
                     f"| {x.get('prog_ns_in_situ')} |")
    costs = [r["cost_ns"] for r in d["rounds"]]
    lines += ["", f"Median over the rounds: {med['ratewall_mpps']:.3f} Mpps alone, {med['multi_mpps']:.3f} Mpps in the "
              f"dispatcher: **{med['cost_ns']:+.0f} ns a packet**"
              + (f" ({med['cost_ns_in_situ']:+.0f} ns in situ)" if "cost_ns_in_situ" in med else "") + "."]
    if min(costs) < 0 < max(costs):
        # A cost whose sign changes from round to round is not measured: say so, with the spread.
        lines[-1] += (f" The rounds disagree even on its sign ({min(costs):+.0f} to {max(costs):+.0f} ns): on this "
                      "machine the dispatcher costs less than its noise, which is the measurement's bound, "
                      "not a figure for a real CPU.")
    return lines
