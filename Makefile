# SPDX-License-Identifier: BSD-3-Clause
# nccl-numa build. `make` builds the plugin and the CLI; `make test` runs every test.
#
# Variables: CC, PREFIX (install), BUILD (output dir), SAN (e.g. address,undefined or thread),
# SEARCH_CFLAGS (extra flags for NCCL's search port alone; test/fuzz/run.sh uses it).

CC ?= cc
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
BUILD ?= build
SAN ?=
PKG_CONFIG ?= pkg-config
CUDA_HOME ?= /usr/local/cuda
# The one place the version lives: VERSION (the Debian changelog must agree, make deb checks).
NN_VERSION := $(shell cat VERSION)
# Where a multiarch install (the Debian package) puts the plugin, relative to the CLI's bin/.
MULTIARCH ?= $(shell $(CC) -print-multiarch 2>/dev/null)

XML_CFLAGS := $(shell $(PKG_CONFIG) --cflags libxml-2.0 2>/dev/null)
XML_LIBS := $(shell $(PKG_CONFIG) --libs libxml-2.0 2>/dev/null)
# hwloc: reading a machine's topology (discover, and what uses it) alone needs it. HWLOC=0,
# or no pkg-config entry for it, builds everything else without it, and discover says so
# (objects are rebuilt when HWLOC changes: see FLAGS_STAMP).
HWLOC ?= $(if $(shell $(PKG_CONFIG) --exists hwloc 2>/dev/null && echo y),1,0)
HWLOC_CFLAGS := $(if $(filter 1,$(HWLOC)),$(shell $(PKG_CONFIG) --cflags hwloc 2>/dev/null) -DNN_HAVE_HWLOC,)
HWLOC_LIBS := $(if $(filter 1,$(HWLOC)),$(or $(shell $(PKG_CONFIG) --libs hwloc 2>/dev/null),-lhwloc),)
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
SANFLAGS := $(if $(SAN),-fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all,)
OPT ?= -O2 -g
# Headers live by area (include/util, include/core, include/abi/nccl) and each area's
# objects see only the areas below them: plugin/util sees util, plugin/core and cli/
# see core and util, plugin/abi sees all three. So plugin/core and plugin/util cannot
# include an NCCL ABI header: the name is not found, and a path to one is refused after
# the compile (AREA_CHECK reads the object's .d). Tests and tools see everything.
INC_UTIL := -Iinclude/util
INC_CORE := -Iinclude/core $(INC_UTIL)
INC_ABI := -Iinclude/abi/nccl -Iplugin/abi $(INC_CORE) -I.
INC_CLI := -I. $(INC_CORE) $(XML_CFLAGS)
INC_ALL := $(INC_ABI) $(XML_CFLAGS)
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) -fPIC -fvisibility=hidden \
	$(SANFLAGS) -DNN_VERSION='"$(NN_VERSION)"' \
	$(if $(MULTIARCH),-DNN_MULTIARCH='"$(MULTIARCH)"',) $(CPPFLAGS) $(CFLAGS)
LDFLAGS_ALL := $(SANFLAGS) $(LDFLAGS)

ABI_SRC := $(sort $(wildcard plugin/abi/*.c))
CORE_SRC := $(sort $(wildcard plugin/core/*.c plugin/util/*.c))
LIB_SRC := $(ABI_SRC) $(CORE_SRC)
CLI_SRC := $(sort $(wildcard cli/*.c cli/*/*.c))
CLI_MAIN := cli/main.c
UNIT_SRC := $(sort $(wildcard test/unit/test_*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
ABI_OBJ := $(ABI_SRC:%.c=$(BUILD)/obj/%.o)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ := $(filter-out $(BUILD)/obj/$(CLI_MAIN:.c=.o),$(CLI_SRC:%.c=$(BUILD)/obj/%.o))
# The kernels of `nccl-numa p2p`: the committed PTX, embedded as a C array (od: coreutils).
P2P_PTX := cli/p2p/p2p_kernels.ptx
P2P_PTX_C := $(BUILD)/gen/p2p_ptx.c
CLI_OBJ += $(BUILD)/obj/gen/p2p_ptx.o
UNIT_BIN := $(UNIT_SRC:test/unit/%.c=$(BUILD)/test/%)

SO := $(BUILD)/libnccl-tuner-numa.so
CLI := $(BUILD)/nccl-numa
CORE_A := $(BUILD)/libnn-core.a
ABI_A := $(BUILD)/libnn-abi.a
CLI_A := $(BUILD)/libnn-cli.a

.PHONY: all test check demo golden install uninstall clean bench fuzz lint deps unit-bins tools man deb wheel image-test
all: $(SO) $(CLI)

# Each object depends on the headers it includes (-MMD writes them to its .d, -MP keeps a
# removed header from breaking the build); VERSION is compiled in, and the flags are the
# Makefile's.
DEPFLAGS = -MMD -MP
# The flags are a file too: an object is rebuilt when they change (another CC, SAN or OPT,
# or hwloc or cmocka installed since the last build), never left built without them.
FLAGS_STAMP := $(BUILD)/flags.txt
FLAGS_NOW := $(CC) $(CFLAGS_ALL) $(INC_ABI) $(INC_CLI) $(HWLOC_CFLAGS) $(HWLOC_LIBS) $(CMOCKA_CFLAGS) $(CMOCKA_LIBS)
# A build directory make creates ignores itself (BUILD=out, not only build/ of .gitignore), so
# that git, and the tests reading git's file list, never see its outputs as sources.
$(shell [ -d $(BUILD) ] || { mkdir -p $(BUILD) && echo '*' > $(BUILD)/.gitignore; })
$(shell mkdir -p $(BUILD) && now='$(subst ','\'',$(FLAGS_NOW))' && \
  { [ "$$(cat $(FLAGS_STAMP) 2>/dev/null)" = "$$now" ] || printf '%s\n' "$$now" > $(FLAGS_STAMP); })
$(BUILD)/obj/%.o: %.c VERSION Makefile $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(AREA_INC) $(DEPFLAGS) $(HWLOC_CFLAGS) -c $< -o $@
	$(AREA_CHECK)
$(BUILD)/obj/plugin/util/%.o: AREA_INC = $(INC_UTIL)
$(BUILD)/obj/plugin/util/%.o: AREA_CHECK = $(call area_refuse,include/core/|include/abi/|plugin/abi/)
$(BUILD)/obj/plugin/core/%.o: AREA_INC = $(INC_CORE)
$(BUILD)/obj/plugin/core/%.o: AREA_CHECK = $(call area_refuse,include/abi/|plugin/abi/)
$(BUILD)/obj/plugin/abi/%.o: AREA_INC = $(INC_ABI)
$(BUILD)/obj/cli/%.o: AREA_INC = $(INC_CLI)
# The benchmark (cli/sweep: ab, calibrate, report) and the Proxmox rewriter (cli/proxmox) are
# leaves of the command: only their commands (cli/cmd) and their tests include them.
$(BUILD)/obj/cli/%.o: AREA_CHECK = $(call area_refuse,cli/sweep/|cli/proxmox/)
$(BUILD)/obj/cli/sweep/%.o: AREA_CHECK = $(call area_refuse,cli/proxmox/)
$(BUILD)/obj/cli/proxmox/%.o: AREA_CHECK = $(call area_refuse,cli/sweep/)
$(BUILD)/obj/cli/cmd/%.o: AREA_CHECK =
# area_refuse PATTERN: fail (and remove the object) when a header the object included
# matches PATTERN, however it was named in the #include.
area_refuse = @if grep -Eq '(^| )[^ :]*($(1))' $(@:.o=.d); then \
	echo "$<: includes a header of an area it may not use:" >&2; \
	grep -Eo '[^ :]*($(1))[^ :]*' $(@:.o=.d) | sort -u | sed 's/^/  /' >&2; rm -f $@; exit 1; fi
$(BUILD)/obj/plugin/core/nccl_search.o $(BUILD)/obj/plugin/core/nccl_search_rec.o: CFLAGS_ALL += $(SEARCH_CFLAGS)

# The core knows no NCCL ABI: its archive holds plugin/core and plugin/util only; the
# adapters and front ends (plugin/abi) are an archive of their own over it.
$(P2P_PTX_C): $(P2P_PTX)
	@mkdir -p $(dir $@)
	@{ echo '/* generated from $(P2P_PTX) by the Makefile */'; echo '#include "cli/p2p/p2p_ptx.h"'; \
	  echo 'const unsigned char nn_p2p_ptx[] = {'; od -An -v -tx1 $< | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '0x00};'; } > $@.tmp && mv -f $@.tmp $@
$(BUILD)/obj/gen/p2p_ptx.o: $(P2P_PTX_C) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(INC_CLI) -c $< -o $@

$(CORE_A): $(CORE_OBJ)
	@rm -f $@; ar rcs $@ $^

$(ABI_A): $(ABI_OBJ)
	@rm -f $@; ar rcs $@ $^

$(CLI_A): $(CLI_OBJ)
	@rm -f $@; ar rcs $@ $^ $(if $(CLI_OBJ),,/dev/null)

# The plugin: libc only (it writes its topology XML itself; libxml2 is the CLI's alone).
$(SO): $(LIB_OBJ) plugin/abi/exports.map
	$(CC) -shared -o $@ $(LIB_OBJ) -Wl,-soname,libnccl-tuner-numa.so -Wl,--version-script=plugin/abi/exports.map \
		-Wl,-z,defs -Wl,-z,now $(LDFLAGS_ALL) -ldl -lpthread

$(CLI): $(BUILD)/obj/$(CLI_MAIN:.c=.o) $(CLI_A) $(CORE_A)
	$(CC) -o $@ $^ $(LDFLAGS_ALL) $(HWLOC_LIBS) $(XML_LIBS) -ldl -lpthread -lm

$(BUILD)/test/%: test/unit/%.c $(CLI_A) $(ABI_A) $(CORE_A) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@mkdir -p $(BUILD)/obj/test/unit
	$(CC) $(CFLAGS_ALL) $(INC_ALL) $(DEPFLAGS) -MF $(BUILD)/obj/test/unit/$*.d -MT $@ $(CMOCKA_CFLAGS) $(HWLOC_CFLAGS) -Itest/unit $< -o $@ $(CLI_A) $(ABI_A) $(CORE_A) \
		$(LDFLAGS_ALL) $(CMOCKA_LIBS) $(HWLOC_LIBS) $(XML_LIBS) -ldl -lpthread -lm

unit-bins: $(UNIT_BIN)

# NCCL's plugin ABI, one header per version, for the tools that are not tracked by .d files.
ABI_H := $(wildcard include/abi/nccl/*.h)

# The include flags of tests and tools, for the scripts that compile their own
# (test/lint, test/fuzz, test/stress, test/bench).
.PHONY: include-flags
include-flags:
	@echo '$(INC_ALL)'

# Test programs that are not cmocka units (ABI conformance, concurrency, real NCCL).
ABI_TEST_H := test/abi/abi_common.h test/abi/abi_conformance.h $(ABI_H)
$(BUILD)/tools/abi_conformance: test/abi/abi_conformance.c test/abi/abi_env.c test/abi/abi_common.c \
		$(ABI_TEST_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(INC_ALL) $(filter %.c,$^) -o $@ $(LDFLAGS_ALL) -ldl -lpthread
$(BUILD)/tools/concurrency: test/abi/concurrency.c test/abi/abi_common.c $(ABI_TEST_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(INC_ALL) $(filter %.c,$^) -o $@ $(LDFLAGS_ALL) -ldl -lpthread
# What nccl_smoke is built against (as DRIVER_STAMP below): another CUDA_HOME, or another NCCL
# under the same one, rebuilds it instead of testing the old one.
SMOKE_STAMP := $(BUILD)/tools/nccl_smoke.settings
$(SMOKE_STAMP): FORCE
	@mkdir -p $(dir $@)
	@{ echo '$(CC) | $(CUDA_HOME)'; grep -h '^#define NCCL_\(MAJOR\|MINOR\|PATCH\|SUFFIX\)\b' $(CUDA_HOME)/include/nccl.h 2>/dev/null; \
	  stat -L -c '%n %s %Y' $(CUDA_HOME)/lib64/libnccl.so.2 $(CUDA_HOME)/lib/libnccl.so.2 2>/dev/null; } > $@.new; \
	if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi
$(BUILD)/tools/nccl_smoke: test/nccl/nccl_smoke.c $(SMOKE_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -g $(WARN) -isystem $(CUDA_HOME)/include test/nccl/nccl_smoke.c -o $@ \
		-L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/lib -Wl,-rpath,$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib -lnccl
tools: $(BUILD)/tools/abi_conformance $(BUILD)/tools/concurrency $(BUILD)/tools/nn_gpucheck \
	$(BUILD)/tools/test_gpukit $(BUILD)/tools/nn_plugin_lines $(BUILD)/tools/nn_drv_print \
	$(BUILD)/tools/libnn-fakecuda.so
# A stand-in CUDA driver and NVML for `nccl-numa p2p`'s tests (test/p2p/fakecuda.c).
$(BUILD)/tools/libnn-fakecuda.so: test/p2p/fakecuda.c test/p2p/fakecuda_mem.c test/p2p/fakecuda.h plugin/util/numparse.c cli/p2p/p2ptest.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(INC_ALL) -shared -Wl,-soname,libcuda.so.1 test/p2p/fakecuda.c test/p2p/fakecuda_mem.c \
		plugin/util/numparse.c -o $@ $(LDFLAGS_ALL) -lpthread

# The GPU kit (test/gpu): its log checks and the driver's output format build and are
# tested everywhere; the driver itself needs the CUDA runtime and NCCL (make test-gpu
# finds them: NCCL_HOME, python's nvidia-nccl wheel, CUDA_HOME).
GPUKIT_SRC := test/gpu/nclog.c test/gpu/driver_format.c
GPUKIT_H := test/gpu/nclog.h test/gpu/driver_format.h
$(BUILD)/tools/nn_gpucheck: test/gpu/gpucheck.c $(GPUKIT_SRC) $(GPUKIT_H) $(CLI_A) $(CORE_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(INC_ALL) -Itest/gpu test/gpu/gpucheck.c $(GPUKIT_SRC) -o $@ $(CLI_A) $(CORE_A) \
		$(LDFLAGS_ALL) $(HWLOC_LIBS) $(XML_LIBS) -ldl -lpthread -lm
$(BUILD)/tools/test_gpukit: test/gpu/test_gpukit.c $(GPUKIT_SRC) $(GPUKIT_H) $(CLI_A) $(CORE_A) test/unit/nn_test.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(INC_ALL) $(CMOCKA_CFLAGS) -Itest/gpu -Itest/unit test/gpu/test_gpukit.c $(GPUKIT_SRC) -o $@ \
		$(CLI_A) $(CORE_A) $(LDFLAGS_ALL) $(CMOCKA_LIBS) $(HWLOC_LIBS) $(XML_LIBS) -ldl -lpthread -lm
$(BUILD)/tools/nn_drv_print: test/gpu/drv_print.c test/gpu/driver_format.c test/gpu/driver_format.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(INC_ALL) -Itest/gpu $< test/gpu/driver_format.c -o $@ $(LDFLAGS_ALL)
$(BUILD)/tools/nn_plugin_lines: test/gpu/plugin_lines.c $(ABI_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(INC_ALL) $< -o $@ $(LDFLAGS_ALL) -ldl -Wl,--export-dynamic-symbol=ncclGetVersion
# NCCL_INC/NCCL_LIB and CUDART_INC/CUDART_LIB: the directories test/gpu/find_cuda.sh found.
NCCL_INC ?= $(CUDA_HOME)/include
NCCL_LIB ?= $(CUDA_HOME)/lib64
CUDART_INC ?= $(CUDA_HOME)/include
CUDART_LIB ?= $(CUDA_HOME)/lib64
CUDART_SO ?= -lcudart
# DRIVER_RPATH: where the driver looks for NCCL first (make gpu-bundle empties it, so the
# NCCL of the machine it runs on is the one LD_LIBRARY_PATH names).
DRIVER_RPATH ?= -Wl,-rpath,$(NCCL_LIB) -Wl,-rpath,$(CUDART_LIB)
# What the driver is built against, rewritten only when that changed: pointed at another
# NCCL (or the same path holding another release), the driver is rebuilt, not reused.
DRIVER_STAMP := $(BUILD)/tools/nn_coll_driver.settings
$(DRIVER_STAMP): FORCE
	@mkdir -p $(dir $@)
	@{ echo '$(CC) | $(NCCL_INC) | $(NCCL_LIB) | $(CUDART_INC) | $(CUDART_LIB) | $(CUDART_SO) | $(DRIVER_RPATH)'; \
	  grep -h '^#define NCCL_\(MAJOR\|MINOR\|PATCH\|SUFFIX\)\b' $(NCCL_INC)/nccl.h 2>/dev/null; \
	  stat -L -c '%n %s %Y' $(NCCL_LIB)/libnccl.so.2 2>/dev/null; } > $@.new; \
	if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi
.PHONY: FORCE
FORCE:
$(BUILD)/tools/nn_coll_driver: test/gpu/nn_coll_driver.c test/gpu/driver_format.c test/gpu/driver_format.h $(DRIVER_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -Itest/gpu -isystem $(NCCL_INC) -isystem $(CUDART_INC) \
		$< test/gpu/driver_format.c -o $@ -L$(NCCL_LIB) -L$(CUDART_LIB) \
		$(DRIVER_RPATH) -l:libnccl.so.2 $(CUDART_SO) -lpthread
# gpu-bundle: the GPU kit in one folder ($(BUILD)/gpu-bundle) for a GPU machine without
# network or -dev packages; there: bash DIR/run.sh --bundle DIR (docs/user/gpu-check.md).
.PHONY: gpu-bundle
gpu-bundle:
	@BUILD=$(BUILD) bash test/gpu/make_bundle.sh
# test-gpu: a machine without a GPU, CUDA runtime or NCCL prints "skipped: <reason>" and
# passes (test/run.sh runs the script itself and counts that as skipped).
.PHONY: test-gpu
test-gpu:
	@BUILD=$(BUILD) bash test/gpu/run.sh; rc=$$?; [ $$rc -eq 77 ] || exit $$rc

test:
	@BUILD=$(BUILD) bash test/run.sh

# The quick loop: unit tests, ABI conformance and the CLI tests, without sanitizers, fuzzing,
# stress, lint or compat (`make test` runs those too).
check:
	@BUILD=$(BUILD) NN_TEST_QUICK=1 bash test/run.sh

demo:
	@bash test/demo.sh

# Rewrites the golden outputs (test/golden/COMMAND/CASE.out) from the CLI as built: after a
# deliberate change of what explain, check, topo or discover print; review the diff.
golden: $(CLI)
	@NCCL_NUMA_BIN=$(CURDIR)/$(CLI) bash test/golden/run.sh --update

deps:
	@bash .ci/deps.sh

MANDIR ?= $(PREFIX)/share/man
# The manual pages need help2man; without it install says so and installs the rest.
install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/nccl-numa/examples
	install -m 0644 $(SO) $(DESTDIR)$(LIBDIR)/libnccl-tuner-numa.so
	ln -sf libnccl-tuner-numa.so $(DESTDIR)$(LIBDIR)/libnccl-env-numa.so
	install -m 0755 $(CLI) $(DESTDIR)$(PREFIX)/bin/nccl-numa
	install -m 0644 docs/examples/*.conf $(DESTDIR)$(PREFIX)/share/nccl-numa/examples/
	@if command -v help2man >/dev/null; then \
	  $(MAKE) -s man && install -d $(DESTDIR)$(MANDIR)/man1 && \
	  install -m 0644 $(MAN_DIR)/*.1 $(DESTDIR)$(MANDIR)/man1/; \
	else echo "make install: help2man not found: manual pages not installed"; fi

# Removes what install put there (the examples folder only when nothing else is in it).
uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libnccl-tuner-numa.so $(DESTDIR)$(LIBDIR)/libnccl-env-numa.so \
	  $(DESTDIR)$(PREFIX)/bin/nccl-numa $(DESTDIR)$(MANDIR)/man1/nccl-numa.1 \
	  $(DESTDIR)$(MANDIR)/man1/nccl-numa-*.1
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/nccl-numa/examples/,$(notdir $(wildcard docs/examples/*.conf)))
	-rmdir $(DESTDIR)$(PREFIX)/share/nccl-numa/examples $(DESTDIR)$(PREFIX)/share/nccl-numa 2>/dev/null
	@# the other directories install made, where empty now; under /usr and /usr/local (no DESTDIR)
	@# they belong to the system's hierarchy and stay
	-@case "$(DESTDIR)$(PREFIX)" in /usr|/usr/|/usr/local|/usr/local/) exit 0;; esac; \
	for d in $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR) $(DESTDIR)$(PREFIX)/share $(DESTDIR)$(LIBDIR) \
	  $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX); do \
	  [ -d "$$d" ] && rmdir "$$d" 2>/dev/null; done; true

# Manual pages of the command and of each subcommand, made by help2man from their own
# --help and --version (so they cannot drift from the program).
MAN_DIR := $(BUILD)/man
man: $(CLI)
	@rm -rf $(MAN_DIR) && mkdir -p $(MAN_DIR)
	@subs=$$($(CLI) --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  *.*/\1/p'); \
	{ echo '[SEE ALSO]'; for s in $$subs; do printf '.BR nccl-numa-%s (1),\n' $$s; done; \
	  echo 'and the documentation in /usr/share/doc/nccl-numa.'; } > $(MAN_DIR)/see-also.h2m; \
	help2man -N -n 'NUMA-aware tuner and env plugin for NVIDIA NCCL' -i $(MAN_DIR)/see-also.h2m \
	  -o $(MAN_DIR)/nccl-numa.1 $(CLI) || exit 1; \
	$(CLI) --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  *\(.*\)/\1 \2/p' | while read -r sub summary; do \
	  printf '[SEE ALSO]\n.BR nccl-numa (1)\n' > $(MAN_DIR)/sub.h2m; \
	  help2man -N -n "$$summary" -i $(MAN_DIR)/sub.h2m --help-option="$$sub --help" \
	    --version-option="$$sub --version" -o $(MAN_DIR)/nccl-numa-$$sub.1 $(CLI) || exit 1; \
	  sed -i "s/^\.TH NCCL-NUMA /.TH NCCL-NUMA-$$(echo $$sub | tr a-z A-Z) /; /^\.SH NAME/{n;s/^nccl-numa /nccl-numa-$$sub /}" \
	    $(MAN_DIR)/nccl-numa-$$sub.1; \
	done; rm -f $(MAN_DIR)/*.h2m

# A Debian binary package (debian/make-deb.sh: dpkg-buildpackage, debhelper, lintian).
deb:
	@bash debian/make-deb.sh $(BUILD)/pkg

# docker/Dockerfile built with buildah on a local Debian 12 stand-in for the SGLang image, and
# checked inside (test/image/run.sh; skipped without buildah, podman, mmdebstrap).
image-test:
	@BUILD=$(BUILD) bash test/image/run.sh; rc=$$?; [ $$rc -eq 77 ] || exit $$rc

# The pip wheel, manylinux-tagged (python/make-wheel.sh: hatchling, auditwheel repair); the
# tools are a venv of their own (make deps makes it). Prints the wheel's path as its last line.
wheel:
	@bash python/make-wheel.sh $(BUILD)/wheel-build $(BUILD)/wheel

bench:
	@bash test/bench/run.sh

clean:
	rm -rf $(BUILD)

# ---- release checks: compatibility, fuzzing, stress and leaks, static analysis.
# `make bench` is above. Each script documents its variables (BUILD is passed through).
.PHONY: compat stress
compat:
	@BUILD=$(BUILD) bash test/compat/run.sh
fuzz:
	@BUILD=$(BUILD) bash test/fuzz/run.sh
stress:
	@BUILD=$(BUILD) bash test/stress/run.sh
lint:
	@bash test/lint/run.sh
# The tests of `make check` on an -O0 --coverage build in $(BUILD)/coverage, and lcov's line
# coverage of plugin/ and cli/ (test/coverage/run.sh).
.PHONY: coverage
coverage:
	@BUILD=$(BUILD) bash test/coverage/run.sh
# Rewrites the C sources as .clang-format says (make lint checks them: test/lint/format.sh).
.PHONY: format
format:
	@bash test/lint/format.sh --fix

# The headers each object and unit test included when it was last built.
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
