"""What the torch tests share: a failure names its rank and ends it;
expect counts the checks made (checks.made), raises checks the words of an
expected RuntimeError and returns its message."""
import sys

import torch.distributed as dist

made = 0


def fail(msg):
    rank = dist.get_rank() if dist.is_initialized() else "?"
    print(f"rank {rank}: FAIL: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def expect(cond, msg):
    global made
    made += 1
    if not cond:
        fail(msg)


def raises(fn, *words):
    """fn() must raise a RuntimeError whose message holds every word."""
    try:
        fn()
    except RuntimeError as e:
        msg = str(e)
        missing = [w for w in words if w not in msg]
        expect(not missing, f"the error lacks {missing}: {msg}")
        return msg
    fail(f"no error; expected one with {words}")
