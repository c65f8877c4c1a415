/* `harness doctor`: what this host offers a benchmark run, and why not when it does not. */
#ifndef HX_DOCTOR_H
#define HX_DOCTOR_H

#include <stddef.h>

#include "base/err.h"

/* Gather the host facts as the text of a JSON object (docs/doctor.md; also a results file's host
 * section), malloc'd in *ret_json: the facts are a document by design, and only the verbs and results
 * parse it. *ret_pinned_ok tells whether a pinned run is possible; *ret_why says why not. */
int doctor_probe(const char *sysfs_root, char **ret_json, int *ret_pinned_ok, char *why, size_t why_len,
		 struct hx_err *err);

#endif
