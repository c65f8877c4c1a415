/* CPU sets as fixed-size bitmaps, with the kernel's list format ("0-3,8,10-11"). */
#ifndef CG_CPUS_H
#define CG_CPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CG_MAX_CPUS 1024

struct cg_cpus {
	uint64_t bits[CG_MAX_CPUS / 64];
};

/* Parse a kernel CPU list; white space around it is ignored, an empty list is the empty set. */
int cg_cpus_parse(const char *list, struct cg_cpus *ret);
/* Format as a kernel CPU list; "" for the empty set. Truncates safely to len. */
void cg_cpus_format(const struct cg_cpus *s, char *buf, size_t len);
void cg_cpus_set(struct cg_cpus *s, unsigned cpu);
void cg_cpus_clear(struct cg_cpus *s, unsigned cpu);
bool cg_cpus_test(const struct cg_cpus *s, unsigned cpu);
unsigned cg_cpus_count(const struct cg_cpus *s);
bool cg_cpus_empty(const struct cg_cpus *s);
bool cg_cpus_equal(const struct cg_cpus *a, const struct cg_cpus *b);
void cg_cpus_and(struct cg_cpus *dst, const struct cg_cpus *src);
void cg_cpus_or(struct cg_cpus *dst, const struct cg_cpus *src);
void cg_cpus_andnot(struct cg_cpus *dst, const struct cg_cpus *src);
/* The lowest CPU >= from in s, or -1. */
int cg_cpus_next(const struct cg_cpus *s, unsigned from);

#define CG_CPUS_FOREACH(cpu, s) \
	for (int cpu = cg_cpus_next((s), 0); cpu >= 0; cpu = cg_cpus_next((s), (unsigned)cpu + 1))

#endif
