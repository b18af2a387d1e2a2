# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The targets of `make bench` and which a result meets.

Every target is a ratio side by side in one run (ratewall against the row's
floor, its toy, a competitor, or itself with another option), or a figure of
the machine-independent kind (ns a packet in L1, MiB planned), so it holds on
any machine. A check is a dict: what (the target), got (the figure), met
(True, False, or None for a reference figure shown beside the targets)."""
from cases import KEY_CASES, RANK_CASES, RANK_TOY, ROWS_ALL

# Each a minimum of ratewall's Mpps over another case's in the same row:
# "floor" is the row's floor, toy_d64 the 64-byte-a-source program.
TARGETS = {
    "one_over": [("toy_d64", 0.90)],
    "64k_over": [("toy_d64", 0.80), ("nft_meter", 3.0), ("iptables_hashlimit", 3.0)],
    "64k_under": [("floor", 0.90)],
    "spoofed": [("floor", 0.90), ("nft_meter", 2.0)],
    "prefix_flood": [("floor", 0.40)],
    "syn_flood": [("floor", 0.40), ("toy_d64", 0.80)],
    "1m_over": [("toy_d64", 0.60)],
}
RULES_TARGET = 0.95  # ratewall with 10 000 mixed rules, against ratewall without, same row
KEY_TARGET = 0.90  # ratewall with another --key (dst, flow), against --key src, same traffic
RANK_TARGET_NS = 40  # each kind ranked beside the main one (--rank), ns a packet
PROGCOST_TARGET_NS = 70  # every scenario, one frame in L1, `ratewall run`'s default clock
MEMORY_TARGET_MIB = 130  # `ratewall memory --cpus 64` at the defaults (docs/decisions/benchmarks.md)
CASE_NAMES = {"floor": "floor", "toy_d64": "64 B toy", "nft_meter": "nft", "iptables_hashlimit": "hashlimit"}


def check(what, got, met):
    return {"what": what, "got": got, "met": met}


def outcome(c):
    """'met', 'MISSED', or '' for a reference figure."""
    return "" if c["met"] is None else ("met" if c["met"] else "MISSED")


def ratio(got, want):
    """got as a ratio, with a third decimal where two would read as the target it missed."""
    return f"{got:.3f}x" if got < want and round(got, 2) >= want else f"{got:.2f}x"


def by_case(results):
    """The throughput figures by (row, case)."""
    return {(r["row"], r["case"]): r for r in results["throughput"] if "row" in r}


def row_checks(key, by, floor):
    """The checks of one throughput row: its ratios, other keys, --rank, 10 000 rules."""
    rw = by.get((key, "ratewall"), {})
    if "mpps" not in rw:
        return []
    out = []
    for other, want in TARGETS.get(key, []):
        o = floor if other == "floor" else by.get((key, other), {})
        if "mpps" in o:
            got = rw["mpps"] / o["mpps"]
            out.append(check(f">= {want:.2f}x {CASE_NAMES[other]}", ratio(got, want), got >= want))
    for case, kind in KEY_CASES.items():
        other = by.get((key, case), {})
        if "mpps" in other:
            got = other["mpps"] / rw["mpps"]
            out.append(check(f"--key {kind} >= {KEY_TARGET:.2f}x --key src", ratio(got, KEY_TARGET), got >= KEY_TARGET))
    for case, kinds in RANK_CASES.items():
        other = by.get((key, case), {})
        if "mpps" in other:
            per = (1e3 / other["mpps"] - 1e3 / rw["mpps"]) / len(kinds)
            out.append(check(f"--rank {','.join(kinds)} <= {RANK_TARGET_NS} ns a packet per kind",
                             f"{per:+.0f} ns ({other['mpps']:.2f} Mpps)", per <= RANK_TARGET_NS))
            # The same kinds as one more 64-byte line each beside the 64 B toy: the floor of an exact tally.
            toy, toy_rank = by.get((key, "toy_d64"), {}), by.get((key, RANK_TOY), {})
            if "mpps" in toy and "mpps" in toy_rank:
                floor_per = (1e3 / toy_rank["mpps"] - 1e3 / toy["mpps"]) / len(kinds)
                out.append(check("a line a kind beside the 64 B toy (reference)",
                                 f"{floor_per:+.0f} ns ({toy_rank['mpps']:.2f} Mpps)", None))
    rules = by.get((key, "ratewall_rules"), {})
    if "mpps" in rules:
        got = rules["mpps"] / rw["mpps"]
        out.append(check(f"10k rules >= {RULES_TARGET:.2f}x no rules", ratio(got, RULES_TARGET), got >= RULES_TARGET))
    return out


def progcost_check(results):
    """The program's worst case a packet in L1 at `ratewall run`'s defaults."""
    for key, pc in results.get("progcost", {}).items():
        if key.endswith("defaults"):
            worst = max(x["ns"] for x in pc["ratewall"])
            return check(f"<= {PROGCOST_TARGET_NS} ns a packet, one frame in L1, the defaults",
                         f"worst {worst:.0f} ns", worst <= PROGCOST_TARGET_NS)
    return None


def memory_check(results):
    mem = results.get("memory")
    if not mem:
        return None
    return check(f"<= {MEMORY_TARGET_MIB} MiB kernel memory at the defaults on 64 CPUs",
                 f"{mem['mib']:.1f} MiB", mem["mib"] <= MEMORY_TARGET_MIB)


def all_checks(results):
    """(where, check) for every target a result has figures for, rows first."""
    by = by_case(results)
    out = []
    for key, label, _, floor_case, _, _ in ROWS_ALL:
        if (key, floor_case) in by:
            out += [(label, c) for c in row_checks(key, by, by[(key, floor_case)])]
    for where, c in (("program cost (progcost)", progcost_check(results)),
                     ("kernel memory (`ratewall memory`)", memory_check(results))):
        if c:
            out.append((where, c))
    return out
