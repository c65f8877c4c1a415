/* The adapter's duet: side A the runtime's plain server on a null handler, side B the adapter on a null handler
 * (scenario.json's "adapter_cost"), each a copy of the scenario with that script, B on the next port; the
 * duet's planned slices are the run's sut slice and its twin (cg_plan_duet), for the measurement only. */
#include "run/adapter.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "run/duet.h"

/* A copy of s serving only script on port: readiness on "/", no body check, no memory run, its own warm-up. */
static void null_side(const struct scenario *s, const char *script, unsigned port, struct scenario *ret)
{
	*ret = *s;
	memset(ret->scripts, 0, sizeof(ret->scripts));
	snprintf(ret->scripts[0].path, sizeof(ret->scripts[0].path), "%s", script);
	ret->nscripts = 1;
	ret->port = port;
	snprintf(ret->ready_path, sizeof(ret->ready_path), "/");
	ret->ready_status = 200;
	ret->check_length = false;
	ret->body_sha256[0] = '\0';
	ret->memory_idle_s = 0;
	ret->warmup_requests = ADAPTER_WARMUP;
}

/* The counted pairs' throughputs (noisy pairs left out while at least 3 quiet ones remain). */
static int cost_of(const struct ab_doc *d, struct adc_cost *c, struct hx_err *err)
{
	_cleanup_free_ double *a = calloc(d->nw / 2 + 1, sizeof(double));
	_cleanup_free_ double *b = calloc(d->nw / 2 + 1, sizeof(double));
	size_t n = 0, noisy = 0;

	if (!a || !b)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	for (int keep_noisy = 0; keep_noisy < 2 && n < 3; keep_noisy++) {
		n = noisy = 0;
		for (size_t i = 0; i + 1 < d->nw; i += 2) {
			const struct ab_window *x, *y;
			enum ab_pair_use use;

			if (!ab_pair_at(d, i, &x, &y, &use) || use == AB_PAIR_WARMUP)
				continue;
			noisy += use == AB_PAIR_NOISY;
			if (use == AB_PAIR_NOISY && !keep_noisy)
				continue;
			a[n] = ab_value(x, AB_RPS);
			b[n++] = ab_value(y, AB_RPS);
		}
		c->noisy_kept = keep_noisy;
	}
	c->noisy_pairs = c->noisy_kept ? 0 : noisy;
	if (adc_compute(a, b, n, c) < 0)
		return hx_fail(err, HX_EXIT_VERDICT, EIO, "the duet's %zu pairs gave no throughput to compare", n);
	return 0;
}

int adapter_measure(struct run_env *env, const struct scenario *s, const struct manifest *m,
		    const struct img_status *st, enum cg_cpu_mode mode, struct adc_cost *ret, struct hx_err *err)
{
	_cleanup_free_ struct scenario *sc = calloc(2, sizeof(*sc));
	struct cg_slice_plan saved = env->plan[mode];
	struct duet_opts o = {.window_s = ADAPTER_WINDOW_S, .max_time_s = ADAPTER_TIME_S, .seed = ADC_SEED};
	struct ab_doc d = {0};
	uint64_t t0 = util_now_ns();
	int rc;

	if (!sc)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	snprintf(ret->scenario, sizeof(ret->scenario), "%s", s->name);
	snprintf(ret->runtime, sizeof(ret->runtime), "%s", m->name);
	snprintf(ret->mode, sizeof(ret->mode), "%s", cg_cpu_mode_names[mode]);
	snprintf(ret->adapter, sizeof(ret->adapter), "%s", s->adapter_cost.adapter);
	snprintf(ret->plain, sizeof(ret->plain), "%s", s->adapter_cost.plain);
	ret->connections = s->connections;
	ret->window_s = o.window_s;
	null_side(s, s->adapter_cost.plain, s->port, &sc[0]);
	null_side(s, s->adapter_cost.adapter, s->port + 1, &sc[1]);
	cg_plan_duet(&env->plan[mode]);
	rc = duet_http(env,
		       (const struct duet_side[2]){{.s = &sc[0], .m = m, .st = st, .side = {.slice = CG_SLICE_SUT}},
						   {.s = &sc[1], .m = m, .st = st, .side = {.slice = CG_SLICE_SUT_B}}},
		       mode, &o, &d, err);
	env->plan[mode] = saved;
	ret->seconds = (double)(util_now_ns() - t0) / 1e9;
	if (rc == 0 && d.errors)
		rc = hx_fail(err, HX_EXIT_VERDICT, EIO, "%llu requests of the duet failed",
			     (unsigned long long)d.errors);
	if (rc == 0)
		rc = cost_of(&d, ret, err);
	ab_free(&d);
	return rc;
}
