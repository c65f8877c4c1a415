/* A slice that thrashes at its memory limit: its working set no longer fits, the kernel reclaims the pages
 * the runtime runs from (its own code, read back from disk or, in an emulated guest, over 9p) and reclaim keeps
 * "making progress", so the kernel's OOM killer never fires and the trial would wait out its whole budget (18
 * minutes for 100,000 requests) on a process that gets nowhere. The evidence is the slice's memory pressure
 * (PSI: memory.pressure's "full" total, the time in which every task of the cgroup waited on memory) while its
 * memory is at its limit: when the stall covers at least THR_SHARE of the last THR_WINDOW_S seconds (10% of 10
 * s) and the slice's memory is within a tenth of its limit, harness ends the slice as the kernel would have, and
 * the trial says OOM (docs/errors.md). The limit keeps a host short of memory (whose reclaim stalls every slice)
 * from being called the runtime's thrashing. */
#ifndef HX_THRASH_H
#define HX_THRASH_H

#include <stdbool.h>
#include <stdint.h>

#define THR_WINDOW_S 10
#define THR_SHARE    0.1 /* the emulated guest's runtime thrashing at --memory stalled 34% and 52% */
#define THR_RING     32	 /* samples kept, THR_STEP_NS apart at least: 16 s, more than a window */
#define THR_STEP_NS  500000000ull

/* One slice's recent "full" totals. */
struct thr_ring {
	uint64_t t_ns[THR_RING], full_usec[THR_RING];
	unsigned n, head;
};

/* Add a sample (now_ns, the slice's full total in µs; UINT64_MAX when unreadable, which is skipped) and say
 * whether the slice has stalled for at least THR_SHARE of a window of THR_WINDOW_S s or more ending now; then
 * *ret_share is that share of the window. */
bool thr_feed(struct thr_ring *r, uint64_t now_ns, uint64_t full_usec, double *ret_share);
/* Whether memory (bytes in use) is within a tenth of limit; false when either is UINT64_MAX (not known, none). */
bool thr_at_limit(uint64_t memory, uint64_t limit);

#endif
