/* `harness noise`: one noise generator, run until its duration passes or SIGTERM; ops/s as one JSON line
 * on stdout. A run starts it in the noise slice's sandbox for the measured phase of a trial. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/opt.h"
#include "cgroups/cg.h"
#include "cli/verbs.h"
#include "noise/noise.h"
#include "results/results.h"

struct noise_verb_opts {
	bool help;
	double duration;
	const char *io_dir;
};

static const struct hx_opt noise_tab[] = {
	{"duration", 'd', OPT_DURATION, offsetof(struct noise_verb_opts, duration), "DURATION",
	 .help = "stop after this long (default: at SIGTERM or SIGINT)", .min = 0.001},
	{"io-dir", 0, OPT_STR, offsetof(struct noise_verb_opts, io_dir), "DIR",
	 .help = "io: the folder of the file written and fsynced (default /tmp); its file system is recorded",
	 .check = OPT_CHECK_DIR},
	{"help", 'h', OPT_FLAG, offsetof(struct noise_verb_opts, help), NULL, .help = "show this help"},
	OPT_END,
};
/* For the man page and the shell completions (cli/docgen.c). */
const struct hx_opt *const verb_noise_opts = noise_tab;

int verb_noise(int argc, char **argv)
{
	struct noise_verb_opts o = {0};
	struct noise_spec spec;
	struct noise_result r;
	struct hx_err err = {0};
	struct cg_cpus aff;
	char *text;
	int npos;

	if (opt_parse("noise", noise_tab, &o, argc, argv, false, &npos, &err) < 0)
		return hx_report(&err);
	if (o.help) {
		opt_print_help(
			stdout, "harness noise KIND[:LEVEL] [--duration D] [--io-dir DIR]",
			"Make noise until the duration passes or SIGTERM, then print what it did as one JSON line.\n"
			"Kinds: cpu[:THREADS] (spinning threads; default one per CPU we may use), cache[:SIZE]\n"
			"(a random pointer chase over SIZE, default twice the last-level cache), membw[:SIZE]\n"
			"(STREAM copy, default 256M), io[:SIZE] (write SIZE then fdatasync, default 1M),\n"
			"alloc[:SIZE] (map, touch, unmap SIZE, default 64M). See docs/noise.md.",
			noise_tab);
		return HX_EXIT_OK;
	}
	if (npos != 1) {
		hx_fail(&err, HX_EXIT_USAGE, EINVAL, "noise: one KIND[:LEVEL], e.g. harness noise cpu:2 --duration 5s");
		return hx_report(&err);
	}
	if (noise_spec_parse(argv[1], &spec, &err) < 0)
		return hx_report(&err);
	if (spec.kind == NOISE_NONE) {
		hx_fail(&err, HX_EXIT_USAGE, EINVAL, "noise: 'none' makes no noise: name a kind (cpu, cache, ...)");
		return hx_report(&err);
	}
	if (cg_own_affinity(&aff, &err) < 0)
		return hx_report(&err);
	noise_spec_resolve(&spec, cg_cpus_count(&aff), noise_llc_bytes("/sys"));
	if (noise_run(&spec, &(struct noise_opts){.duration_s = o.duration, .io_dir = o.io_dir}, &r, &err) < 0)
		return hx_report(&err);
	{
		cJSON *j = res_noise_json(&r);

		text = cJSON_PrintUnformatted(j);
		cJSON_Delete(j);
	}
	if (!text)
		return HX_EXIT_INTERNAL;
	printf("%s\n", text);
	free(text);
	return fflush(stdout) == 0 ? HX_EXIT_OK : HX_EXIT_INTERNAL;
}
