"""Prints what the compiler needs to build against the torch that python3 imports.

    python3 torch/flags.py check | cflags | ldflags | platlib

check says whether this python has a torch to build against (2.x, with
torch.distributed), and if not, what to do instead: make torch runs it first.
"""
import sys
import sysconfig

INSTEAD = (
    "build against a python that has it: make torch TORCH_PYTHON=/path/to/venv/bin/python "
    "(a pip-installed torch 2.x), or on Debian 12, whose torch is 1.13, in the Debian 13 root "
    "that scripts/setup makes: scripts/torch-root run make torch"
)

try:
    import torch
    import torch.distributed  # noqa: F401
    from torch.utils import cpp_extension
except ImportError as e:
    sys.exit("make torch: %s cannot import torch.distributed (%s); %s" % (sys.executable, e, INSTEAD))

what = sys.argv[1] if len(sys.argv) > 1 else ""
major = int(torch.__version__.split(".")[0])
if major < 2:
    sys.exit("make torch: %s has torch %s, and the backend needs 2.x (c10d::Backend); %s"
             % (sys.executable, torch.__version__, INSTEAD))
if what == "check":
    print("torch %s at %s" % (torch.__version__, torch.__file__))
elif what == "cflags":
    # system headers: torch's own warnings are not ours to fix
    flags = ["-isystem" + p for p in cpp_extension.include_paths()]
    flags += ["-isystem" + sysconfig.get_paths()["include"]]
    flags += ["-D_GLIBCXX_USE_CXX11_ABI=%d" % int(torch._C._GLIBCXX_USE_CXX11_ABI)]
    flags += ["-DTORCH_API_INCLUDE_EXTENSION_H", "-DTORCH_EXTENSION_NAME=_C"]
    print(" ".join(flags))
elif what == "ldflags":
    flags = []
    for p in cpp_extension.library_paths():
        flags += ["-L" + p, "-Wl,-rpath," + p]
    flags += ["-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python"]
    print(" ".join(flags))
elif what == "platlib":
    print(sysconfig.get_paths()["platlib"])
else:
    sys.exit("usage: flags.py check | cflags | ldflags | platlib")
