/* Helpers shared by the unit tests. */
#ifndef HX_TESTUTIL_H
#define HX_TESTUTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgroups/cpus.h"

/* A fixture folder below tests/fixtures (HARNESS_FIXTURES when the runner sets it). */
static inline const char *fixture(const char *rel)
{
	static char buf[4096];
	const char *base = getenv("HARNESS_FIXTURES");

	snprintf(buf, sizeof(buf), "%s/%s", base ? base : "tests/fixtures", rel);
	return buf;
}

/* Compare a CPU set against a kernel CPU list. */
#define assert_cpus(set, list)                             \
	do {                                               \
		char _buf[4096];                           \
		cg_cpus_format((set), _buf, sizeof(_buf)); \
		assert_string_equal(_buf, (list));         \
	} while (0)

#endif
