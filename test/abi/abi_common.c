/* SPDX-License-Identifier: BSD-3-Clause */
/* abi_common.c - the CHECK counters (abi_common.h), one pair for all of a program's files. */
#include "abi_common.h"

_Atomic int nn_failures, nn_checks;
