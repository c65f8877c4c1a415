/* `harness scenarios ls`: the shipped scenarios, their workload, runtimes and description. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cli/verbs.h"
#include "run/scenario.h"

int verb_scenarios(int argc, char **argv)
{
	struct dirent **names = NULL;
	struct hx_err err = {0};
	int n;

	if (argc < 2 || strcmp(argv[1], "ls") != 0) {
		bool help = argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);

		fprintf(help ? stdout : stderr, "Usage: harness scenarios ls\n\nList the scenarios (%s).\n", scn_dir());
		return help ? HX_EXIT_OK : HX_EXIT_USAGE;
	}
	n = scandir(scn_dir(), &names, NULL, alphasort);
	if (n < 0)
		return hx_fail(&err, HX_EXIT_HOST, errno, "scenarios: %s: %s", scn_dir(), strerror(errno)),
		       hx_report(&err);
	printf("%-16s %-8s %-48s %s\n", "NAME", "WORKLOAD", "RUNTIMES", "DESCRIPTION");
	for (int k = 0; k < n; k++) {
		struct scenario s;
		char rts[512] = "";

		if (names[k]->d_name[0] != '.' && scn_load(scn_dir(), names[k]->d_name, &s, &err) == 0) {
			for (size_t i = 0; i < s.nruntimes; i++)
				snprintf(rts + strlen(rts), sizeof(rts) - strlen(rts), "%s%s", i ? "," : "",
					 s.runtimes[i]);
			printf("%-16s %-8s %-48s %s\n", s.name, scn_workload_names[s.workload], rts, s.description);
		} else if (err.msg[0]) {
			hx_report(&err);
			hx_clear(&err);
		}
		free(names[k]);
	}
	free(names);
	return HX_EXIT_OK;
}
