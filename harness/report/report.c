/* Summaries of trials and the tables made from them. */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"

int report_format_parse(const char *s, enum report_format *ret)
{
	static const char *const names[] = {"table", "md", "json", "csv"};

	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*ret = (enum report_format)i;
			return 0;
		}
	return -1;
}

static double num(const cJSON *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		o = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(o) ? o->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : "";
}

/* The metrics a summary keeps, where each trial has them. */
static const struct {
	const char *name, *path;
} metrics[] = {
	{"startup_median_ms", "startup.wall_ms.median"},
	{"rps", "load.rps"},
	{"p99_us", "load.latency_us.p99"},
	{"idle_rss_kb", "server.idle_rss_kb"},
	{"peak_rss_kb", "server.peak_rss_kb"},
	{"post_load_rss_kb", "server.post_load_rss_kb"},
	{"errors", "load.errors.total"},
	{"client_cpu_us_per_request", "load.client.cpu_us_per_request"},
	{"deliveries_per_s", "chat.deliveries_per_s"},
	{"rtt_p99_us", "chat.rtt_us.p99"},
	{"lost", "chat.lost"},
	{"ops_per_s", "script.ops_per_s"},
	{"script_p50_ms", "script.p50_ms"},
	{"script_p99_ms", "script.p99_ms"},
	{"script_errors", "script.errors"},
	{"script_max_rss_kb", "process.max_rss_kb"},
	{"fixture_ready_ms", "fixture.ready_ms"},
};

static bool same_group(const cJSON *a, const cJSON *b)
{
	return !strcmp(str(a, "scenario"), str(b, "scenario")) && !strcmp(str(a, "runtime"), str(b, "runtime")) &&
	       !strcmp(str(a, "mode"), str(b, "mode"));
}

cJSON *report_summaries(const cJSON *trials)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *t;

	cJSON_ArrayForEach (t, trials) {
		const cJSON *u;
		cJSON *g, *ms;
		bool seen = false, failed = false, saturated = false;
		int n = 0;

		cJSON_ArrayForEach (u, out)
			seen |= same_group(u, t);
		if (seen)
			continue;
		g = cJSON_CreateObject();
		cJSON_AddStringToObject(g, "scenario", str(t, "scenario"));
		cJSON_AddStringToObject(g, "runtime", str(t, "runtime"));
		cJSON_AddStringToObject(g, "mode", str(t, "mode"));
		ms = cJSON_AddObjectToObject(g, "metrics");
		for (size_t k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++) {
			double v[1024];
			size_t nv = 0;
			struct stats_summary s;

			cJSON_ArrayForEach (u, trials)
				if (same_group(u, t) && !strcmp(str(u, "status"), "ok") && nv < 1024 &&
				    !isnan(num(u, metrics[k].path)))
					v[nv++] = num(u, metrics[k].path);
			if (!nv)
				continue;
			stats_summarize(v, nv, &s);
			cJSON_AddItemToObject(ms, metrics[k].name, stats_json(&s, 1));
		}
		cJSON_ArrayForEach (u, trials)
			if (same_group(u, t)) {
				n++;
				failed |= strcmp(str(u, "status"), "ok") != 0;
				saturated |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
					cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(u, "load"),
									 "client"),
					"saturated"));
			}
		cJSON_AddNumberToObject(g, "trials", n);
		cJSON_AddBoolToObject(g, "failed", failed);
		cJSON_AddBoolToObject(g, "client_saturated", saturated);
		cJSON_AddItemToArray(out, g);
	}
	return out;
}

static double med(const cJSON *g, const char *metric)
{
	char path[128];

	snprintf(path, sizeof(path), "metrics.%s.median", metric);
	return num(g, path);
}

/* A number with `decimals` digits and a suffix, or a dash when there is none. */
static void cell(char *buf, size_t len, int decimals, const char *suffix, double v)
{
	if (isnan(v))
		snprintf(buf, len, "–");
	else
		snprintf(buf, len, "%.*f%s", decimals, v, suffix);
}

/* The pinned group of the same scenario and runtime, to show other modes as a ratio to it. */
static const cJSON *baseline(const cJSON *groups, const cJSON *g)
{
	const cJSON *b;

	cJSON_ArrayForEach (b, groups)
		if (!strcmp(str(b, "scenario"), str(g, "scenario")) && !strcmp(str(b, "runtime"), str(g, "runtime")) &&
		    b != g && !strcmp(str(b, "mode"), "pinned"))
			return b;
	return NULL;
}

/* Throughput, whatever the workload counts: requests, chat deliveries or a script's operations. */
static double ops_per_s(const cJSON *g)
{
	return !isnan(med(g, "rps"))		    ? med(g, "rps")
	       : !isnan(med(g, "deliveries_per_s")) ? med(g, "deliveries_per_s")
						    : med(g, "ops_per_s");
}

static void render_rows(const cJSON *groups, enum report_format f, FILE *out)
{
	const char *sep = f == RPT_MD ? " | " : "  ";
	const char *lead = f == RPT_MD ? "| " : "";
	const char *tail = f == RPT_MD ? " |" : "";
	const char *last = "";
	const cJSON *g;

	cJSON_ArrayForEach (g, groups) {
		char a[32], b[32], c[32], d[48], e[32], r[32];
		const cJSON *base = baseline(groups, g);
		double rps = ops_per_s(g);
		/* a chat's round trip or a script's batch p99 fill the p99 column */
		double p99 = !isnan(med(g, "p99_us"))	    ? med(g, "p99_us")
			     : !isnan(med(g, "rtt_p99_us")) ? med(g, "rtt_p99_us")
							    : med(g, "script_p99_ms") * 1e3;
		double errs = !isnan(med(g, "errors")) ? med(g, "errors")
			      : !isnan(med(g, "lost")) ? med(g, "lost")
						       : med(g, "script_errors");
		double st = med(g, "startup_median_ms");

		if (strcmp(last, str(g, "scenario")) != 0) {
			last = str(g, "scenario");
			fprintf(out, "\n%s%s\n\n", f == RPT_MD ? "### " : "== ", last);
			fprintf(out, "%s%-8s%s%-7s%s%10s%s%10s%s%9s%s%17s%s%6s%s%8s%s\n", lead, "runtime", sep, "mode",
				sep, "startup ms", sep, "ops/s", sep, "p99 ms", sep, "idle → peak MB", sep, "errors",
				sep, "vs pinned", tail);
			if (f == RPT_MD)
				fprintf(out, "|---|---|---:|---:|---:|---:|---:|---:|\n");
		}
		cell(a, sizeof(a), 2, "", st);
		cell(b, sizeof(b), 0, "", rps);
		cell(c, sizeof(c), 2, "", p99 / 1e3);
		if (isnan(med(g, "idle_rss_kb")) && !isnan(med(g, "script_max_rss_kb")))
			snprintf(d, sizeof(d), "peak %.1f", med(g, "script_max_rss_kb") / 1024);
		else if (isnan(med(g, "idle_rss_kb")))
			snprintf(d, sizeof(d), "–");
		else
			snprintf(d, sizeof(d), "%.1f → %.1f", med(g, "idle_rss_kb") / 1024,
				 med(g, "peak_rss_kb") / 1024);
		cell(e, sizeof(e), 0, "", errs);
		if (base && !isnan(rps))
			cell(r, sizeof(r), 2, "x", rps / ops_per_s(base));
		else if (base && !isnan(st))
			cell(r, sizeof(r), 2, "x", st / med(base, "startup_median_ms"));
		else
			snprintf(r, sizeof(r), "%s", "");
		fprintf(out, "%s%-8s%s%-7s%s%10s%s%10s%s%9s%s%17s%s%6s%s%8s%s%s%s\n", lead, str(g, "runtime"), sep,
			str(g, "mode"), sep, a, sep, b, sep, c, sep, d, sep, e, sep, r, tail,
			cJSON_IsTrue(cJSON_GetObjectItem(g, "failed")) ? " FAILED" : "",
			cJSON_IsTrue(cJSON_GetObjectItem(g, "client_saturated")) ? " (client saturated)" : "");
	}
}

static void render_csv(const cJSON *groups, FILE *out)
{
	const cJSON *g;

	fprintf(out, "scenario,runtime,mode,trials,failed,client_saturated");
	for (size_t k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++)
		fprintf(out, ",%s_median,%s_ci95_low,%s_ci95_high", metrics[k].name, metrics[k].name, metrics[k].name);
	fprintf(out, "\n");
	cJSON_ArrayForEach (g, groups) {
		fprintf(out, "%s,%s,%s,%.0f,%d,%d", str(g, "scenario"), str(g, "runtime"), str(g, "mode"),
			num(g, "trials"), cJSON_IsTrue(cJSON_GetObjectItem(g, "failed")),
			cJSON_IsTrue(cJSON_GetObjectItem(g, "client_saturated")));
		for (size_t k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++) {
			const char *f[] = {"median", "ci95_low", "ci95_high"};

			for (int i = 0; i < 3; i++) {
				char path[128];
				double v;

				snprintf(path, sizeof(path), "metrics.%s.%s", metrics[k].name, f[i]);
				v = num(g, path);
				if (isnan(v))
					fprintf(out, ",");
				else
					fprintf(out, ",%g", v);
			}
		}
		fprintf(out, "\n");
	}
}

void report_render(const cJSON *results, enum report_format f, FILE *out)
{
	const cJSON *groups = cJSON_GetObjectItemCaseSensitive(results, "summaries");
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(results, "config");

	if (f == RPT_JSON) {
		char *s = cJSON_Print(results);

		fprintf(out, "%s\n", s);
		free(s);
		return;
	}
	if (f == RPT_CSV) {
		render_csv(groups, out);
		return;
	}
	fprintf(out, "%sharness %s: profile %s, %.0f CPU(s) for the runtime, client on CPUs %s%s\n",
		f == RPT_MD ? "## " : "", str(cJSON_GetObjectItemCaseSensitive(results, "harness"), "version"),
		str(cfg, "profile"), num(cfg, "cpus"), str(cfg, "client_cpus"), f == RPT_MD ? "" : "");
	render_rows(groups, f, out);
	fprintf(out, "\nMedians over trials. ops/s: requests, chat deliveries or a script's operations (queries) per "
		     "second; p99: of requests, chat round trips or a script's batches; startup: each trial's median "
		     "of its runs; memory: the server's RSS idle and its peak under load, or a script's peak.\n");
}
