#!/usr/bin/env python3
"""Where the CPU goes during one measured run of an external-command system of the peer harness.

    baton-benchmarks/cpu-split.py [--every-ms MS] -- COMMAND [ARG...]

Runs COMMAND with the harness's environment (WORKLOAD, W1_N, PGHOST, ...; set them before),
passes its stdout through, and between the lines "BENCH_PHASE measure_start" and
"BENCH_PHASE measure_end" samples /proc: the CPU time of every process on the machine, summed by
process name (postgres is the server, java the Baton client, pgbench the SQL run raw), the CPU
time of each thread of java processes, summed by thread name (digits dropped), and the machine's
idle time. Prints them on stderr when the command ends. For a server on this machine only; a
diagnostic, not a figure of the harness (the sampling itself costs a few percent of one core,
shown as its own process name).

Example, Baton's drain and its SQL run raw, one after the other (see docs/BENCHMARKS.md):

    export WORKLOAD=w1 W1_N=100000 ROUND=1 W1_WARM=2000
    JDBC_URL='jdbc:postgresql://127.0.0.1:5432/split?user=postgres' BATON_CONCURRENCY=1024 \\
      BATON_KEEP_COMPLETED=false JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 \\
      BATON_JAVA_OPTS='-XX:TieredStopAtLevel=1 -XX:+UseSerialGC' \\
      baton-benchmarks/cpu-split.py -- baton-benchmarks/harness.sh
    PGHOST=127.0.0.1 PGUSER=postgres PGDATABASE=split BATCH=500 \\
      BATON_SQL_VARIANT=complete_and_claim_delete \\
      baton-benchmarks/cpu-split.py -- baton-benchmarks/pgbench/harness.sh
"""
import collections
import os
import re
import subprocess
import sys
import threading
import time

HZ = os.sysconf("SC_CLK_TCK")


def read_stat(path):
    """(name, user + system ticks) from a /proc stat file, or None if it is gone."""
    try:
        with open(path) as f:
            s = f.read()
    except OSError:
        return None
    name = s[s.index("(") + 1 : s.rindex(")")]
    fields = s[s.rindex(")") + 2 :].split()
    return name, int(fields[11]) + int(fields[12])


def snapshot():
    """Ticks by pid (with name) and by java thread (with thread name)."""
    procs, threads = {}, {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        st = read_stat(f"/proc/{pid}/stat")
        if st is None:
            continue
        procs[pid] = st
        if st[0] == "java":
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tids:
                t = read_stat(f"/proc/{pid}/task/{tid}/stat")
                if t is not None:
                    threads[(pid, tid)] = t
    return procs, threads


def idle_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return v[3] + v[4], sum(v)  # idle + iowait, all


class Sampler(threading.Thread):
    def __init__(self, every):
        super().__init__(daemon=True)
        self.every = every
        self.stop_flag = threading.Event()
        self.by_proc = collections.Counter()
        self.by_thread = collections.Counter()

    def run(self):
        self.t0 = time.monotonic()
        self.idle0 = idle_ticks()
        prev_p, prev_t = snapshot()
        while not self.stop_flag.wait(self.every):
            cur_p, cur_t = snapshot()
            # a process or thread that started since the last sample counts from zero; one that
            # ended loses at most its last interval
            for key, (name, ticks) in cur_p.items():
                before = prev_p[key][1] if key in prev_p else 0
                self.by_proc[name] += max(0, ticks - before)
            for key, (name, ticks) in cur_t.items():
                before = prev_t[key][1] if key in prev_t else 0
                self.by_thread[re.sub(r"[0-9]+", "#", name)] += max(0, ticks - before)
            prev_p, prev_t = cur_p, cur_t
        self.elapsed = time.monotonic() - self.t0
        idle1 = idle_ticks()
        self.idle = (idle1[0] - self.idle0[0]) / HZ
        self.all = (idle1[1] - self.idle0[1]) / HZ

    def stop(self):
        self.stop_flag.set()
        self.join()


def main(argv):
    every = 0.1
    if argv[:1] == ["--every-ms"]:
        every = int(argv[1]) / 1000
        argv = argv[2:]
    if argv[:1] != ["--"] or len(argv) < 2:
        sys.exit("usage: cpu-split.py [--every-ms MS] -- COMMAND [ARG...]")
    cmd = argv[1:]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    sampler = None
    for line in p.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        if "BENCH_PHASE" in line and "measure_start" in line and sampler is None:
            sampler = Sampler(every)
            sampler.start()
        elif "BENCH_PHASE" in line and "measure_end" in line and sampler is not None:
            sampler.stop()
    rc = p.wait()
    if sampler is None or sampler.is_alive():
        print("cpu-split: no measure_start / measure_end pair seen", file=sys.stderr)
        return rc or 1
    out = sys.stderr
    print(
        f"cpu-split: measured {sampler.elapsed:.2f} s on {os.cpu_count()} cores: "
        f"busy {sampler.all - sampler.idle:.2f} s, idle {sampler.idle:.2f} s (CPU seconds)",
        file=out,
    )
    print("  by process:", file=out)
    for name, ticks in sampler.by_proc.most_common(8):
        print(f"    {name:<24} {ticks / HZ:7.2f} s", file=out)
    if sampler.by_thread:
        print("  java threads:", file=out)
        for name, ticks in sampler.by_thread.most_common(10):
            if ticks:
                print(f"    {name:<24} {ticks / HZ:7.2f} s", file=out)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
