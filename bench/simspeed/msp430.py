#!/usr/bin/env python3
"""MSP430 core speed against mspdebug's simulator, on the same ELFs, in one run.

usage: bench/simspeed/msp430.py [BUILD_DIR] [--instructions N] [--quick]

For each firmware (busy_msp430.c here, and examples that never sleep, all built by wsn-cc for
msp430f1611) both simulators execute exactly N instructions:
  - WSNMsp430 through build/bin/msp430-run, which reports the instructions it executed and
    the CPU seconds of its run loop;
  - `mspdebug sim "prog ELF" "step N"`: CPU seconds of the process (getrusage of children) minus
    those of the same command with "step 0" (start-up and ELF loading). A separate run with the
    tracer device checks that mspdebug executed exactly N instructions.
CPU time, not wall time, is compared: the machine is shared. Prints a table (millions of
instructions per CPU second, and the ratio)."""
import json
import os
import resource
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

FIRMWARE = {
    "busy_msp430 (no trace)": (["--no-trace"], ["bench/simspeed/busy_msp430.c"]),
    "sort_search (traced)": (["-I", "examples/plain"], ["examples/plain/sort_search.c"]),
    "task_queue (traced)": (["-I", "examples/plain"], ["examples/plain/task_queue.c"]),
}


def child_cpu(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), r.stdout


def main():
    args = sys.argv[1:]
    n = 20000000
    if "--instructions" in args:
        n = int(args[args.index("--instructions") + 1])
        del args[args.index("--instructions"):args.index("--instructions") + 2]
    if "--quick" in args:
        n //= 10
        args.remove("--quick")
    build_dir = args[0] if args else os.path.join(ROOT, "build")
    run = os.path.join(build_dir, "bin", "msp430-run")
    cc = os.path.join(build_dir, "bin", "wsn-cc")
    for tool in (run, cc):
        if not os.path.exists(tool):
            sys.exit("simspeed: %s not found (build it first)" % tool)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (opts, srcs) in FIRMWARE.items():
            out = os.path.join(tmp, name.split()[0])
            subprocess.run([cc, "--target=msp430", "--mcu=msp430f1611", "-I", "examples/common"] + opts +
                           ["-o", out] + srcs, cwd=ROOT, check=True, capture_output=True)
            elf = out + ".elf"
            ours = json.loads(subprocess.run([run, "--instructions=%d" % n, elf], check=True,
                                             capture_output=True, text=True).stdout)
            if ours["instructions"] != n:
                sys.exit("simspeed: %s stopped after %d instructions (%s)" % (name, ours["instructions"], ours["state"]))
            base, _ = child_cpu(["mspdebug", "-q", "sim", "prog " + elf, "step 0"])
            full, _ = child_cpu(["mspdebug", "-q", "sim", "prog " + elf, "step %d" % n])
            _, traced = child_cpu(["mspdebug", "-q", "sim", "simio add tracer t", "prog " + elf,
                                   "step %d" % n, "simio info t"])
            counted = [l for l in traced.splitlines() if l.startswith("Instruction count:")]
            if not counted or int(counted[0].split(":")[1]) != n:
                sys.exit("simspeed: mspdebug did not execute exactly %d instructions on %s: %s" % (n, name, counted))
            theirs = max(full - base, 1e-9)
            rows.append((name, n, ours["cycles"], n / ours["cpu_seconds"] / 1e6, n / theirs / 1e6,
                         theirs / ours["cpu_seconds"]))
    print("| firmware (msp430f1611) | instructions | cycles (ours) | WSNMsp430 M instr/CPU-s | "
          "mspdebug sim M instr/CPU-s | speed-up |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print("| %s | %d | %d | %.1f | %.1f | %.2fx |" % r)


if __name__ == "__main__":
    main()
