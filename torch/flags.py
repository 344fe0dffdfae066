"""Prints what the compiler needs to build against the torch that python3 imports.

    python3 torch/flags.py cflags | ldflags | platlib
"""
import sys
import sysconfig

import torch
from torch.utils import cpp_extension

what = sys.argv[1] if len(sys.argv) > 1 else ""
if what == "cflags":
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
    sys.exit("usage: flags.py cflags | ldflags | platlib")
