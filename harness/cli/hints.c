/* What the verbs add to a message for a user: a name a typo away, a results file that is partial. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/opt.h"
#include "cli/verbs.h"
#include "report/report.h"
#include "results/results.h"

void verb_warn_partial(const char *verb, const char *path, const struct res_doc *d)
{
	char why[512];

	if (report_partial(d, why, sizeof(why)))
		fprintf(stderr, "harness: %s: warning: %s is partial: %s; its figures cover only those trials\n", verb,
			path, why);
}

int verb_suggest(struct hx_err *err, const char *dir, const char *suffix, const char *word)
{
	char near[128];
	size_t at = strlen(err->msg);

	if (err->errnum == ENOENT && opt_suggest_in_dir(dir, suffix, word, near, sizeof(near)) && at < sizeof(err->msg))
		snprintf(err->msg + at, sizeof(err->msg) - at, "; did you mean '%s'?", near);
	return -err->errnum;
}
