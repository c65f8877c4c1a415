/* The HTML report's timelines (docs/report.md): for a scenario, each http trial's throughput, p99, server RSS
 * and CPU over the measured load, every trial overlaid, then small multiples: a figure per cell (runtime,
 * mode, neighbour; in a route matrix also route and connections, whose cells keep the timelines) with that
 * cell's trials overlaid; flags marked. */
#ifndef HX_HTML_TIMELINE_H
#define HX_HTML_TIMELINE_H

#include <stddef.h>
#include <stdio.h>

#include "results/results.h"

/* The figures of scenario scn's trials that kept a timeline (the overview, then one per cell), with chart ids from *nchart on (advanced);
 * colours[i] is runtimes[i]'s. Nothing when no trial kept one. */
void html_timelines(FILE *out, const struct res_doc *d, const char *scn, const char *const *runtimes,
		    const char *const *colours, size_t nruntimes, unsigned *nchart);

#endif
