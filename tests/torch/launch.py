"""Starts N ranks of a script the way torchrun does (env://), and waits for them.

    python3 tests/torch/launch.py -n 4 [--timeout S] [--grace S] [--killed R] script.py [args...]

Debian's torch 2.6 is built without libuv, so torchrun itself cannot start
there; this sets what torchrun would (RANK, LOCAL_RANK, WORLD_SIZE,
LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, USE_LIBUV=0). Exit status: 0 if
every rank exited 0 (rank R killed by SIGKILL, with --killed R), else the first
failing rank's status (124 when a rank outlived --timeout: all are then killed).

Once a rank has ended, the others get --grace seconds to end too (a rank that
raised is followed by the others raising within the group's timeout, which the
error tests check), then SIGTERM and, 2 s later, SIGKILL, as torchrun stops a
job whose worker failed; so a rank that waits forever on one that is gone (Gloo
without a timeout) cannot hold the job until --timeout.

A rank that fails is named with its status or signal, and the ranks run with
Python's faulthandler on, so a crash in native code prints every thread's
Python stack: a failure says where, even one that printed nothing itself.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, required=True)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--grace", type=float, default=90,
                    help="seconds the others get once a rank has ended (more than the tests' 60 s group timeouts)")
    ap.add_argument("--killed", type=int, default=-1, help="this rank kills itself, as a test of a lost rank")
    ap.add_argument("script")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    port = free_port()
    procs = []
    for rank in range(a.n):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(a.n),
                   LOCAL_WORLD_SIZE=str(a.n), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                   USE_LIBUV="0", PYTHONFAULTHANDLER="1")
        procs.append(subprocess.Popen([sys.executable, a.script] + a.args, env=env))
    deadline = time.monotonic() + a.timeout
    status = 0
    stop_at = None  # once a rank has ended: when the others are stopped
    terminated = False
    while any(p.poll() is None for p in procs):
        now = time.monotonic()
        if now > deadline:
            for p in procs:
                if p.poll() is None:
                    p.kill()
            print(f"launch.py: ranks still running after {a.timeout:g} s: killed", file=sys.stderr)
            status = 124
            break
        ended = [r for r, p in enumerate(procs) if p.poll() is not None]
        if ended and stop_at is None:
            stop_at = now + a.grace
            first = ended[0]
        if stop_at is not None and now > stop_at:
            running = [r for r, p in enumerate(procs) if p.poll() is None]
            if not terminated:
                print(f"launch.py: rank {first} ended (status {procs[first].returncode}) and ranks "
                      f"{running} were still running {a.grace:g} s later: stopping them",
                      file=sys.stderr)
                for r in running:
                    procs[r].terminate()
                terminated = True
                stop_at = now + 2
            else:
                for r in running:
                    procs[r].kill()
            status = status or 124
        time.sleep(0.05)
    for rank, p in enumerate(procs):
        p.wait()
        if rank == a.killed:
            if p.returncode != -9:
                print(f"launch.py: rank {rank} was to die of SIGKILL, but ended with {p.returncode}",
                      file=sys.stderr)
                status = status or 1
            continue
        if p.returncode and not terminated and status != 124:
            how = (f"signal {-p.returncode} ({signal.strsignal(-p.returncode)})" if p.returncode < 0
                   else f"status {p.returncode}")
            print(f"launch.py: rank {rank} ended with {how}", file=sys.stderr)
        if p.returncode and not status:
            status = p.returncode if p.returncode > 0 else 128 - p.returncode
    sys.exit(status)


if __name__ == "__main__":
    main()
