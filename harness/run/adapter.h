/* What a scenario's adapter costs a request (docs/scenario.md, "Adapters"): its "adapter_cost" servers, the
 * adapter on a null handler and the runtime's plain server on a null handler, measured as a short duet
 * (run/duet.c): both up at once on the same CPUs, the load alternated between them in short windows. */
#ifndef HX_ADAPTER_H
#define HX_ADAPTER_H

#include "results/adcost.h"
#include "run/run.h"

#define ADAPTER_WINDOW_S 0.25 /* each window: a pair is 0.5 s, short next to the host's bursts of noise */
#define ADAPTER_TIME_S	 4.0  /* the duet's windows: about 8 pairs (7 counted), the least a duet's CI takes */
/* each side's warm-up, whatever the run's --requests made of the scenario's: a null handler's JIT needs its
 * thousands of requests before the windows, and answers them in well under a second */
#define ADAPTER_WARMUP 10000

/* The cost for s on m in mode, into ret (its names, scripts and figures). A server that does not start, a
 * duet that ends early or a window with errors is an error with its reason: the caller records it as the
 * cost's error rather than failing the run. */
int adapter_measure(struct run_env *env, const struct scenario *s, const struct manifest *m,
		    const struct img_status *st, enum cg_cpu_mode mode, struct adc_cost *ret, struct hx_err *err);

#endif
