/* Rendering cgroup stats for results files and for people. */
#include "report/stats_json.h"

#include <inttypes.h>

cJSON *res_stats_json(const struct cg_stats *st)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *psi = NULL;

	for (int k = 0; k < CG_NR_STATS; k++)
		if (st->have[k])
			cJSON_AddNumberToObject(o, cg_stat_names[k], (double)st->v[k]);
	for (int r = 0; r < CG_NR_PSI; r++) {
		const struct cg_psi *p = &st->psi[r];
		cJSON *e;

		if (!p->have)
			continue;
		if (!psi)
			psi = cJSON_AddObjectToObject(o, "psi");
		e = cJSON_AddObjectToObject(psi, cg_psi_names[r]);
		cJSON_AddNumberToObject(e, "some_avg10", p->some_avg10);
		cJSON_AddNumberToObject(e, "some_total_usec", (double)p->some_total_usec);
		if (p->have_full) {
			cJSON_AddNumberToObject(e, "full_avg10", p->full_avg10);
			cJSON_AddNumberToObject(e, "full_total_usec", (double)p->full_total_usec);
		}
	}
	return o;
}

void res_stats_print(FILE *f, const struct cg_stats *st)
{
	for (int k = 0; k < CG_NR_STATS; k++) {
		if (st->have[k])
			fprintf(f, "  %-22s %" PRIu64 "\n", cg_stat_names[k], st->v[k]);
		else
			fprintf(f, "  %-22s (not reported by this host)\n", cg_stat_names[k]);
	}
	for (int r = 0; r < CG_NR_PSI; r++)
		if (st->psi[r].have)
			fprintf(f, "  psi_%-18s some avg10 %.2f total %" PRIu64 " us\n", cg_psi_names[r],
				st->psi[r].some_avg10, st->psi[r].some_total_usec);
}
