/* `harness scenarios ls [--json]`: the shipped scenarios, their workload, runtimes and description. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/esc.h"
#include "base/cleanup.h"
#include "base/err.h"
#include "base/opt.h"
#include "cli/verbs.h"
#include "run/scenario.h"

struct scenarios_opts {
	bool help, json;
};

static const struct hx_opt scenarios_tab[] = {
	{"json", 0, OPT_FLAG, offsetof(struct scenarios_opts, json), NULL,
	 .help = "a JSON array of {name, workload, runtimes, description}"},
	{"help", 'h', OPT_FLAG, offsetof(struct scenarios_opts, help), NULL, .help = "show this help"},
	OPT_END,
};
/* For the man page and the shell completions (cli/docgen.c). */
const struct hx_opt *const verb_scenarios_opts = scenarios_tab;

#define SCENARIOS_USAGE "harness scenarios ls [--json]"

static void print_one(const struct scenario *s, cJSON *all)
{
	char rts[512] = "", name[ESC_LEN], desc[ESC_LEN], r[ESC_LEN];
	cJSON *o, *list;

	if (!all) { /* a user's scenario folder wrote these: shown, never obeyed by the terminal */
		for (size_t i = 0; i < s->nruntimes; i++)
			snprintf(rts + strlen(rts), sizeof(rts) - strlen(rts), "%s%s", i ? "," : "",
				 esc_term(s->runtimes[i], r, sizeof(r)));
		printf("%-21s %-8s %-48s %s\n", esc_term(s->name, name, sizeof(name)), scn_workload_names[s->workload],
		       rts, esc_term(s->description, desc, sizeof(desc)));
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", s->name);
	cJSON_AddStringToObject(o, "workload", scn_workload_names[s->workload]);
	list = cJSON_AddArrayToObject(o, "runtimes");
	for (size_t i = 0; i < s->nruntimes; i++)
		cJSON_AddItemToArray(list, cJSON_CreateString(s->runtimes[i]));
	cJSON_AddStringToObject(o, "description", s->description);
	cJSON_AddItemToArray(all, o);
}

static int scenarios_ls(bool json)
{
	struct dirent **names = NULL;
	struct hx_err err = {0};
	cJSON *all = json ? cJSON_CreateArray() : NULL;
	_cleanup_free_ char *text = NULL;
	int n = scandir(scn_dir(), &names, NULL, alphasort);

	if (n < 0) {
		cJSON_Delete(all);
		hx_fail(&err, HX_EXIT_HOST, errno, "scenarios: %s: %s", scn_dir(), strerror(errno));
		return hx_report(&err);
	}
	if (!json)
		printf("%-21s %-8s %-48s %s\n", "NAME", "WORKLOAD", "RUNTIMES", "DESCRIPTION");
	for (int k = 0; k < n; k++) {
		struct scenario s;

		if (names[k]->d_name[0] != '.' && scn_load(scn_dir(), names[k]->d_name, &s, &err) == 0) {
			print_one(&s, all);
		} else if (err.msg[0]) {
			hx_report(&err);
			hx_clear(&err);
		}
		free(names[k]);
	}
	free(names);
	if (json && (text = cJSON_Print(all)))
		printf("%s\n", text);
	cJSON_Delete(all);
	return json && !text ? HX_EXIT_INTERNAL : HX_EXIT_OK;
}

int verb_scenarios(int argc, char **argv)
{
	struct scenarios_opts o = {0};
	struct hx_err err = {0};
	int npos;

	if (opt_parse("scenarios", scenarios_tab, &o, argc, argv, false, &npos, &err) < 0)
		return hx_report(&err);
	if (o.help) {
		opt_print_help(stdout, SCENARIOS_USAGE,
			       "List the scenarios, from the scenarios folder of this harness.", scenarios_tab);
		return HX_EXIT_OK;
	}
	if (npos > 1 && strcmp(argv[1], "ls") == 0) {
		hx_fail(&err, HX_EXIT_USAGE, EINVAL, "scenarios: ls takes no argument, not '%s'", argv[2]);
		return hx_report(&err);
	}
	if (npos != 1 || strcmp(argv[1], "ls") != 0) {
		hx_fail(&err, HX_EXIT_USAGE, EINVAL, "scenarios: %s%s%s: " SCENARIOS_USAGE,
			npos ? "unknown sub-verb '" : "expected a sub-verb", npos ? argv[1] : "", npos ? "'" : "");
		return hx_report(&err);
	}
	return scenarios_ls(o.json);
}
