# SPDX-License-Identifier: BSD-3-Clause
"""``python -m nccl_numa ARGS`` and the ``nccl-numa`` console script: the bundled command."""
from __future__ import annotations

import os
import sys
from typing import NoReturn

from nccl_numa import command_path

# The commands that read the release of the NCCL the job would load, and so look in a Python
# environment's site-packages (read, never run): this one (the package's own), even when it is not
# activated. exec and env are left alone, so exec still changes exactly three variables.
_ASK_PYTHON = ("check", "explain", "topo")


def main() -> NoReturn:
    """Replaces this process with the bundled ``nccl-numa`` (same arguments, exit code and
    signals). The command finds the bundled plugin next to itself, at ``../lib``."""
    command = command_path()
    args = sys.argv[1:]
    if args and args[0] in _ASK_PYTHON and sys.executable:
        os.environ.setdefault("NCCL_NUMA_PYTHON", sys.executable)
    os.execv(command, ["nccl-numa", *args])


if __name__ == "__main__":
    main()
