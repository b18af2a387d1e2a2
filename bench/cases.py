# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What `make bench` measures: its sizes, its rows of traffic and the cases in
each row. Shared by the measuring (measure.py, throughput.py), the targets
(targets.py) and the rendering (render.py), so a row is named in one place."""
import os

QUICK = os.environ.get("BENCH_QUICK") == "1"

# Sizes: packets per throughput run, seconds of steady flood per accuracy run.
# BENCH_QUICK keeps every kind of figure but fewer sizes of each.
PACKETS = 1_000_000 if QUICK else 4_000_000
RUNS = 1 if QUICK else 3  # measured runs per case; the table shows their median
TICK_FLOWS = [10240, 102400] if QUICK else [10240, 102400, 1048576]
FACTORS = [10] if QUICK else [2, 10, 100]
DECISION_FACTORS = ["10"] if QUICK else ["0.9", "2", "10", "100"]
LIMIT_PPS = 10000


def accuracy_seconds(quick):
    """Seconds of receive timestamps an accuracy figure spans (a saved run says whether it was quick)."""
    return 3 if quick else 5


ACCURACY_SECONDS = accuracy_seconds(QUICK)

# The reference programs, beside every row: what the parse costs, and what one
# 8-byte or one 64-byte line of state a source costs, on this machine.
TOYS = ["toy_parse", "toy_d8", "toy_d64"]
# The least an exact tally of `--rank dst,pair` adds: toy_d64 with one more 64-byte line
# for the destination and one for the pair, each in an array of its own (beside ratewall_rank).
RANK_TOY = "toy_rank"

# The rows: (key, label, what the traffic is, floor, the limiters' verdict, cases).
# Sources: (count, family, order). Warm-up sends each source once in insertion
# order; the measured run uses the row's order, so a table's memory order never
# matches the send order unless the row says round-robin. A random row (a flood
# of new sources) is warmed by a measured run's worth of its own traffic: the
# in-situ check and the measured runs meet a full table, a window after it filled.
# Every limiter is configured so that the row's traffic gets the row's verdict:
#   drop: ratewall --bps 8 (one byte per second: every frame is over), nft and
#         hashlimit at 1/minute burst 1 after a warm-up that used each source's burst;
#   pass: ratewall --pps 10k (each source sends far less), nft/hashlimit as above
#         on sources never seen before (the spoofed flood: each first packet passes).
# Over a packet rate, where `ratewall` is over a byte budget no frame fits (--bps 8, saturated
# outright): each source is admitted at its rate, evenly, and refused in between by its
# schedule, as a source over its limit mostly is (--pps 1: the drops are nearly all of it at
# any speed; at --pps 10, 64 Ki sources sharing 0.6 Mpps sent 9 pps each, under the limit).
# A result keeps the limit it ran with (paced_limit); one without ran with PACED_LIMIT_BEFORE.
PACED_CASE = "ratewall_paced"
PACED_LIMIT = ["--pps", "1"]
PACED_LIMIT_BEFORE = ["--pps", "10"]
ROWS = [
    ("one_over", "1 source over its limit", (1, 4, "uniform"), "xdp_drop_all", "drop",
     ["xdp_drop_all", *TOYS, "ratewall", PACED_CASE]),
    ("64k_over", "64 Ki sources over their limit, shuffled", (65536, 4, "shuffled"), "xdp_drop_all", "drop",
     ["xdp_drop_all", *TOYS, "ratewall", PACED_CASE, "ratewall_rules", "ratewall_flow", "ratewall_rank", RANK_TOY,
      "ratewall_multi", "nft_meter", "iptables_hashlimit"]),
    ("64k_over_rr", "64 Ki sources over their limit, round-robin (flatters: insertion order)",
     (65536, 4, "uniform"), "xdp_drop_all", "drop", ["xdp_drop_all", "toy_d64", "ratewall"]),
    ("64k_under", "64 Ki sources under their limit, shuffled", (65536, 4, "shuffled"), "xdp_pass_all", "pass",
     ["xdp_pass_all", *TOYS, "ratewall", "ratewall_rules"]),
    ("spoofed", "spoofed flood: a new random IPv6 source every packet", (4294967295, 6, "random"),
     "xdp_pass_all", "pass", ["xdp_pass_all", *TOYS, "ratewall", "ratewall_rules", "nft_meter",
                              "iptables_hashlimit"]),
    # A spoofed flood from one /16 with a rule that gives each /16 one budget: no per-source
    # limit catches it (each source sends a packet or two), the prefix rule drops it.
    ("prefix_flood", "spoofed flood from one /16, rule `198.18.0.0/15 limit 10k per /16`",
     (65535, 4, "random"), "xdp_drop_all", "drop", ["xdp_drop_all", *TOYS, "ratewall"]),
    # A SYN flood from spoofed sources and ports to one server, held by a rule with a match:
    # every SYN goes to the server's one budget (per dst), saturated.
    ("syn_flood", "spoofed SYN flood (random sources and ports) to one server, rule "
     "`0.0.0.0/0 tcp flags syn limit 10k per dst`", (65535, 4, "random"), "xdp_drop_all", "drop",
     ["xdp_drop_all", *TOYS, "ratewall"]),
    # One destination under a spoofed flood: `ratewall` keys it by source (a new key every
    # packet, dropped at the sketch's cap), `ratewall_dst` by destination (one key, saturated).
    ("dst_flood", "spoofed flood (random IPv6 /64s) to one destination",
     (4294967295, 6, "random"), "xdp_drop_all", "drop", ["xdp_drop_all", "ratewall", "ratewall_dst"]),
]
# The same traffic under another --key: (case, kind), shown in the "other key" column.
KEY_CASES = {"ratewall_flow": "flow", "ratewall_dst": "dst"}
# --key src with other kinds ranked beside it (--rank): what each costs a packet.
RANK_CASES = {"ratewall_rank": ["dst", "pair"]}
# ratewall in libxdp's dispatcher (--xdp-mode multi), alone in it: what the
# dispatcher costs beside the `ratewall` case of the same row. A kernel that
# refuses extension programs (the dispatcher's) skips it.
MULTI_CASE = "ratewall_multi"
MULTI_ARGS = ["--xdp-mode", "multi"]
MULTI_REFUSED = "refuses the extension (freplace) program"
# The largest row, left out of BENCH_QUICK.
ROW_1M = ("1m_over", "1 Mi IPv6 sources over their limit, shuffled, `--max-flows 1M`",
          (1048576, 6, "shuffled"), "xdp_drop_all", "drop",
          ["xdp_drop_all", *TOYS, "ratewall", "nft_meter", "iptables_hashlimit"])
ROWS_ALL = ROWS + [ROW_1M]
# The rows this run measures (BENCH_QUICK leaves out the million sources).
MEASURED_ROWS = ROWS if QUICK else ROWS_ALL

TCP_CAP = "10M"
TCP_CAP_BPS = 10_000_000
TCP_DELAY = "10ms"  # each way through the delay line: a 20 ms round trip
