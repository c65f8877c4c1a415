/* `harness doctor`: what this host offers a benchmark run, and why not when it does not. */
#ifndef HX_DOCTOR_H
#define HX_DOCTOR_H

#include <cjson/cJSON.h>

#include "base/err.h"

/* Gather the host facts as a JSON object (also used for a results file's host section).
 * *ret_pinned_ok tells whether a pinned run is possible; *ret_why says why not. */
int doctor_probe(const char *sysfs_root, cJSON **ret, int *ret_pinned_ok, char *why, size_t why_len,
		 struct hx_err *err);

#endif
