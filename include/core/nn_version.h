/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nn_version.h - the version of nccl-numa. Its one source is the file VERSION at
 * the top of the tree: the Makefile passes it as NN_VERSION to every object, the
 * Debian package takes its version from debian/changelog, which `make deb` checks
 * against VERSION. The CLI prints it for --version, the plugin in its INIT lines
 * and JSON records, so a log says which build wrote it.
 */
#ifndef NCCL_NUMA_NN_VERSION_H
#define NCCL_NUMA_NN_VERSION_H

#ifndef NN_VERSION
#error "NN_VERSION is not defined: build with the Makefile (it reads the file VERSION)"
#endif

#endif
