# SPDX-License-Identifier: BSD-3-Clause
"""``python -m nccl_numa ARGS`` and the ``nccl-numa`` console script: the bundled command."""
from __future__ import annotations

import os
import sys
from typing import NoReturn

from nccl_numa import command_path


def main() -> NoReturn:
    """Replaces this process with the bundled ``nccl-numa`` (same arguments, exit code and
    signals). The command finds the bundled plugin next to itself, at ``../lib``."""
    command = command_path()
    os.execv(command, ["nccl-numa", *sys.argv[1:]])


if __name__ == "__main__":
    main()
