# SPDX-License-Identifier: BSD-3-Clause
"""hatchling build hook: the wheel gets what the Makefile builds.

The plugin and the command are built by make (into $NN_WHEEL_BUILD, default build/), so the
wheel holds the same binaries as `make install`. Layout inside the wheel:

  nccl_numa/bin/nccl-numa               the command (auditwheel vendors hwloc and libxml2)
  nccl_numa/lib/libnccl-tuner-numa.so   the plugin; the command finds it at ../lib
  nccl_numa/examples/*.conf             the example mappings
  <name>.data/data/share/man/man1/*.1   the manual pages, installed under the venv's share/
"""
import os
import subprocess
import sysconfig
from pathlib import Path
from typing import Any, Dict

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class NcclNumaBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: Dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        if version == "editable":
            raise RuntimeError("nccl-numa: editable installs are not supported (the package holds binaries)")
        root = Path(self.root)
        build = Path(os.environ.get("NN_WHEEL_BUILD", "build"))
        if not build.is_absolute():
            build = root / build
        subprocess.run(["make", "-s", f"BUILD={build}", "all", "man"], cwd=root, check=True)
        include = build_data["force_include"]
        include[str(build / "nccl-numa")] = "nccl_numa/bin/nccl-numa"
        include[str(build / "libnccl-tuner-numa.so")] = "nccl_numa/lib/libnccl-tuner-numa.so"
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
