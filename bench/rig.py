# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The apparatus of `make bench`: shell commands, the two namespaces
(tests/harness/testbed.sh), `ratewall run` in the receiver, the programs'
in-situ statistics and the machine's description."""
import fcntl
import glob
import json
import os
import platform
import re
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The build directory whose binaries run (bench.py sets it from its argument).
BUILD = os.path.join(ROOT, "build")
# The generator, when it is not BUILD's (ab.py: one generator for both builds it measures).
GEN = None
NCPUS = os.cpu_count() or 1
TB = "rwbench"


def lock():
    """Holds /run/rwbench.lock for the life of the process, or raises RuntimeError: two
    benchmarks at once would share, and pull down, one pair of namespaces."""
    f = open("/run/rwbench.lock", "w")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        raise RuntimeError("another benchmark (make bench or make bench-ab) is running here")
    return f


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(cmd, check=True, timeout=120, **kw):
    """Runs a command (list) and returns its stdout."""
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()[:300]}")
    return r.stdout


def bash(script, check=True, timeout=60):
    return sh(["bash", "-c", f". '{ROOT}/tests/harness/testbed.sh'; {script}"], check, timeout)


class Testbed:
    """The two namespaces on a veth pair, or with `delay` (each way, for at most
    `seconds`) a delay line between them (testbed.sh tb_up_delayed)."""

    def __init__(self, queues, delay=None, seconds=0):
        self.snd, self.rcv, self.tx, self.rx = TB + "s", TB + "r", TB + "a", TB + "b"
        self.down()
        if delay:
            out = bash(f"tb_up_delayed {TB} {delay} {seconds} '{BUILD}/rwdelay' && echo $TB_RX_MAC")
        else:
            out = bash(f"tb_up {TB} {queues} && echo $TB_RX_MAC")
        self.mac = out.strip().splitlines()[-1]

    def down(self):
        testbed_down()

    def rcv_cmd(self, *args):
        return ["ip", "netns", "exec", self.rcv, *args]

    def rcv_net_cmd(self, *args):
        """In the receiver's network namespace only: libxdp pins the dispatcher's links in
        /sys/fs/bpf, which `ip netns exec` hides behind a fresh /sys."""
        return ["nsenter", f"--net=/run/netns/{self.rcv}", *args]

    def gen(self, *args, timeout=120):
        """Live frames only: through rwgen's packet socket every row would measure the sender."""
        out = sh(["ip", "netns", "exec", self.snd, GEN or f"{BUILD}/rwgen", "--dev", self.tx,
                  "--dst-mac", self.mac, "--via", "live", *map(str, args)], timeout=timeout)
        return json.loads(out)

    def xdp_prog(self):
        """The id, name and tag of the XDP program on the receiving interface (None if none): the
        program this benchmark runs, where a name could find another's on a shared machine. The
        tag is the kernel's hash of its instructions: two builds' programs are the same if it is."""
        link = json.loads(sh(["ip", "-j", "-n", self.rcv, "link", "show", "dev", self.rx]))[0]
        prog = link.get("xdp", {}).get("prog", {})
        return prog.get("id"), prog.get("name"), prog.get("tag")

    def xdp(self, obj):
        if obj:
            sh(["ip", "-n", self.rcv, "link", "set", "dev", self.rx, "xdpdrv", "obj", obj, "sec", "xdp"])
        else:
            sh(["ip", "-n", self.rcv, "link", "set", "dev", self.rx, "xdpdrv", "off"], check=False)


def testbed_down():
    """Removes the benchmark's namespaces, whatever is left of them: also those of
    a Testbed whose making was cut short (and so never returned one to down())."""
    bash(f"TB_SND={TB}s TB_RCV={TB}r TB_MID={TB}m tb_down", check=False)


class Ratewall:
    """`ratewall run` in the receiver namespace, on the last CPU (the generator has CPU 0).
    Those not yet stopped are in RUNNING, for a run cut short to stop (stop_all)."""
    RUNNING = set()

    def __init__(self, tb, *args, out=False):
        self.tb = tb
        self.err = open(f"/tmp/{TB}.rw.err", "w+")
        self.out = open(f"/tmp/{TB}.rw.json", "w+") if out else subprocess.DEVNULL
        cpu = str(NCPUS - 1)
        in_rcv = tb.rcv_net_cmd if "multi" in args else tb.rcv_cmd
        self.p = subprocess.Popen(in_rcv("taskset", "-c", cpu, f"{BUILD}/ratewall", "run", tb.rx,
                                         *map(str, args), "--json"),
                                  stdout=self.out, stderr=self.err)
        Ratewall.RUNNING.add(self)
        for _ in range(1200):  # preallocating a million flows takes seconds
            self.err.seek(0)
            if "attached to" in self.err.read():
                return
            if self.p.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        self.err.seek(0)
        raise RuntimeError("ratewall did not attach: " + self.err.read().strip()[:300])

    def json_lines(self):
        self.out.seek(0)
        return [json.loads(l) for l in self.out if l.strip()]

    def prog_id(self):
        """ratewall's program: the interface's, or in libxdp's dispatcher there the one of
        its programs that libxdp pinned (/sys/fs/bpf/xdp/dispatch-IFINDEX-ID/progN-prog)
        under ratewall's name."""
        prog_id, name, _ = self.tb.xdp_prog()
        if name != "xdp_dispatcher":
            return prog_id
        for pin in sorted(glob.glob(f"/sys/fs/bpf/xdp/dispatch-*-{prog_id}/prog*-prog")):
            info = json.loads(sh(["bpftool", "prog", "show", "pinned", pin, "-j"], check=False) or "{}")
            if info.get("name") == "ratewall_xdp":
                return info["id"]
        return None

    def dropped(self):
        """Packets the program dropped, summed over CPUs from its stats map."""
        prog_id = self.prog_id()
        if prog_id is None:
            return None
        prog = json.loads(sh(["bpftool", "prog", "show", "id", str(prog_id), "-j"]))
        for map_id in prog.get("map_ids", []):
            info = json.loads(sh(["bpftool", "map", "show", "id", str(map_id), "-j"]))
            if info.get("name") == "stats":
                total = 0
                # One entry per interface (and one for any other): sum them all.
                for dump in json.loads(sh(["bpftool", "map", "dump", "id", str(map_id), "-j"])):
                    if "formatted" in dump:  # with BTF: named fields
                        total += sum(v["value"]["dropped"] for v in dump["formatted"]["values"])
                    else:  # raw bytes: dropped is the third __u64 of struct rw_stats
                        total += sum(int.from_bytes(bytes(int(b, 16) for b in v["value"][16:24]),
                                                    "little") for v in dump["values"])
                return total
        return None

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        Ratewall.RUNNING.discard(self)
        return self.p.returncode

    @classmethod
    def stop_all(cls):
        for rw in list(cls.RUNNING):
            rw.stop()


def prog_stats(prog_id):
    """run_time_ns and run_cnt of the program of that id (kernel.bpf_stats_enabled)."""
    out = sh(["bpftool", "prog", "show", "id", str(prog_id), "-j"], check=False)
    try:
        p = json.loads(out)
        return p.get("run_time_ns", 0), p.get("run_cnt", 0)
    except (ValueError, KeyError, AttributeError):
        return 0, 0


def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = int(re.search(r"MemTotal:\s+(\d+)", f.read()).group(1)) * 1024
    return {"kernel": platform.release(), "cpu_model": model, "cores": NCPUS,
            "memory_gib": round(mem / 2**30, 1), "hostname": platform.node()}



def stats_enabled(on):
    sh(["sysctl", "-qw", f"kernel.bpf_stats_enabled={1 if on else 0}"])

