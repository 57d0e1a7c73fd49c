# SPDX-License-Identifier: BSD-3-Clause
"""nccl-numa from a wheel: the NCCL tuner/env plugin and the ``nccl-numa`` command it bundles.

For launchers written in Python::

    import os, subprocess, nccl_numa
    subprocess.run(cmd, env={**os.environ, **nccl_numa.env("/etc/nccl-numa.conf")})

``python -m nccl_numa ARGS`` and the ``nccl-numa`` console script run the bundled command.
"""

# Underscored: the module's namespace is its API alone (``dir(nccl_numa)``, not only ``*``).
import os as _os
import shlex as _shlex
import subprocess as _subprocess
from pathlib import Path as _Path
from typing import Dict as _Dict, Optional as _Optional, Union as _Union

__all__ = ["NcclNumaError", "command_path", "env", "examples_dir", "plugin_path"]

_HERE = _Path(__file__).resolve().parent
_PLUGIN = _HERE / "lib" / "libnccl-tuner-numa.so"
_COMMAND = _HERE / "bin" / "nccl-numa"
_ENV_NAMES = ("NCCL_TUNER_PLUGIN", "NCCL_ENV_PLUGIN", "NCCL_NUMA_CONFIG")
# set beside them when the mapping or the caller names NCCL_SOCKET_IFNAME and Gloo's is unset
_ENV_OPTIONAL = ("GLOO_SOCKET_IFNAME",)


class NcclNumaError(RuntimeError):
    """The bundled command refused (e.g. no mapping, or an invalid one); the message is its own."""


def _bundled(path: _Path, what: str) -> str:
    if not path.is_file():
        raise FileNotFoundError(f"nccl-numa: the bundled {what} {path} is missing (a broken install?)")
    return str(path)


def plugin_path() -> str:
    """The absolute path of the bundled ``libnccl-tuner-numa.so``, for ``NCCL_TUNER_PLUGIN``
    and ``NCCL_ENV_PLUGIN``."""
    return _bundled(_PLUGIN, "plugin")


def command_path() -> str:
    """The absolute path of the bundled ``nccl-numa`` executable."""
    return _bundled(_COMMAND, "command")


def examples_dir() -> str:
    """The directory of the example mappings shipped with the package."""
    return str(_HERE / "examples")


def env(config: _Optional[_Union[str, "_os.PathLike[str]"]] = None) -> _Dict[str, str]:
    """The three variables ``nccl-numa env`` prints (and ``nccl-numa exec`` sets), as a dict:
    ``NCCL_TUNER_PLUGIN`` and ``NCCL_ENV_PLUGIN`` (the bundled plugin) and ``NCCL_NUMA_CONFIG``
    (the absolute path of the mapping: ``config``, else ``$NCCL_NUMA_CONFIG``, else
    ``/etc/nccl-numa.conf``), and ``GLOO_SOCKET_IFNAME`` where ``exec`` sets it (from
    ``NCCL_SOCKET_IFNAME``, the caller's or the mapping's, when Gloo's own is unset).

    The bundled command resolves and validates the mapping, as ``exec`` does, so the answer is
    the same as the command's; raises :class:`NcclNumaError` with its message when it refuses.
    """
    argv = [command_path(), "env"]
    if config is not None:
        argv += ["--config", _os.fspath(config)]
    done = _subprocess.run(argv, stdin=_subprocess.DEVNULL, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise NcclNumaError(done.stderr.strip() or f"nccl-numa env exited with {done.returncode}")
    found: _Dict[str, str] = {}
    for line in done.stdout.splitlines():
        words = _shlex.split(line)
        if len(words) == 2 and words[0] == "export" and "=" in words[1]:
            name, value = words[1].split("=", 1)
            found[name] = value
    if not set(_ENV_NAMES) <= set(found) <= set(_ENV_NAMES + _ENV_OPTIONAL):
        raise NcclNumaError(
            f"nccl-numa env printed {sorted(found)}, expected {list(_ENV_NAMES)}"
            f" and at most {list(_ENV_OPTIONAL)}"
        )
    return found
