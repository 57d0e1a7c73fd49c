# SPDX-License-Identifier: BSD-3-Clause
"""hatchling build hook: the wheel gets what the Makefile builds.

The plugin and the command are built by make (into $NN_WHEEL_BUILD, default build/wheel-build),
from the same sources and flags as `make install`'s but for an RPATH. Layout inside the wheel:

  nccl_numa/bin/nccl-numa               the command (auditwheel vendors hwloc)
  nccl_numa/lib/libnccl-tuner-numa.so   the plugin; the command finds it at ../lib
  nccl_numa/lib/libxml2.so.N            the libxml2 the command uses (its own libraries vendored)
  nccl_numa/examples/*.conf             the example mappings
  <name>.data/data/share/man/man1/*.1   the manual pages, installed under the venv's share/
"""
import os
import re
import subprocess
import sysconfig
from pathlib import Path
from typing import Any, Dict, Tuple

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _libxml2_of(program: Path) -> Tuple[str, str]:
    """The soname and file of the libxml2 `program` is linked with, as the loader finds it.

    Shipped in nccl_numa/lib, which the command's RPATH names, so that the wheel needs nothing
    the manylinux policy does not provide. The plugin needs no libxml2: it writes its XML itself."""
    out = subprocess.run(["ldd", str(program)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        found = re.match(r"\s*(libxml2\.so\.\d+) => (/\S+)", line)
        if found:
            return found.group(1), os.path.realpath(found.group(2))
    raise RuntimeError(f"nccl-numa: {program} is not linked with libxml2:\n{out}")


class NcclNumaBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: Dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        if version == "editable":
            raise RuntimeError("nccl-numa: editable installs are not supported (the package holds binaries)")
        root = Path(self.root)
        # A build directory of its own: make does not relink when only LDFLAGS change.
        build = Path(os.environ.get("NN_WHEEL_BUILD", "build/wheel-build"))
        if not build.is_absolute():
            build = root / build
        # $ORIGIN/../lib is nccl_numa/lib: the command links the libxml2 shipped there
        # (make passes \$$ to the shell as $).
        rpath = "LDFLAGS=-Wl,-rpath,\\$$ORIGIN/../lib"
        subprocess.run(["make", "-s", f"BUILD={build}", rpath, "all", "man"], cwd=root, check=True)
        include = build_data["force_include"]
        include[str(build / "nccl-numa")] = "nccl_numa/bin/nccl-numa"
        include[str(build / "libnccl-tuner-numa.so")] = "nccl_numa/lib/libnccl-tuner-numa.so"
        soname, path = _libxml2_of(build / "nccl-numa")
        include[path] = f"nccl_numa/lib/{soname}"
        for conf in sorted((root / "docs" / "examples").glob("*.conf")):
            include[str(conf)] = f"nccl_numa/examples/{conf.name}"
        pages = sorted((build / "man").glob("*.1"))
        if not pages:
            raise RuntimeError(f"nccl-numa: no manual pages in {build / 'man'} (make man)")
        for page in pages:
            build_data["shared_data"][str(page)] = f"share/man/man1/{page.name}"
        # Binaries, but no Python extension: any CPython, this platform; auditwheel repair
        # then replaces linux_<arch> with the manylinux tag the binaries satisfy.
        build_data["pure_python"] = False
        platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
        build_data["tag"] = f"py3-none-{platform}"
