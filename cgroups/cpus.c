/* CPU set bitmaps and the kernel's CPU list format. */
#include "cgroups/cpus.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cg_cpus_set(struct cg_cpus *s, unsigned cpu)
{
	if (cpu < CG_MAX_CPUS)
		s->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

void cg_cpus_clear(struct cg_cpus *s, unsigned cpu)
{
	if (cpu < CG_MAX_CPUS)
		s->bits[cpu / 64] &= ~(UINT64_C(1) << (cpu % 64));
}

bool cg_cpus_test(const struct cg_cpus *s, unsigned cpu)
{
	return cpu < CG_MAX_CPUS && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned cg_cpus_count(const struct cg_cpus *s)
{
	unsigned n = 0;

	for (size_t i = 0; i < CG_MAX_CPUS / 64; i++)
		n += (unsigned)__builtin_popcountll(s->bits[i]);
	return n;
}

bool cg_cpus_empty(const struct cg_cpus *s)
{
	return cg_cpus_count(s) == 0;
}

bool cg_cpus_equal(const struct cg_cpus *a, const struct cg_cpus *b)
{
	return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

void cg_cpus_and(struct cg_cpus *dst, const struct cg_cpus *src)
{
	for (size_t i = 0; i < CG_MAX_CPUS / 64; i++)
		dst->bits[i] &= src->bits[i];
}

void cg_cpus_or(struct cg_cpus *dst, const struct cg_cpus *src)
{
	for (size_t i = 0; i < CG_MAX_CPUS / 64; i++)
		dst->bits[i] |= src->bits[i];
}

void cg_cpus_andnot(struct cg_cpus *dst, const struct cg_cpus *src)
{
	for (size_t i = 0; i < CG_MAX_CPUS / 64; i++)
		dst->bits[i] &= ~src->bits[i];
}

int cg_cpus_next(const struct cg_cpus *s, unsigned from)
{
	for (unsigned cpu = from; cpu < CG_MAX_CPUS; cpu++) {
		uint64_t word = s->bits[cpu / 64] >> (cpu % 64);

		if (!word) {
			cpu |= 63;
			continue;
		}
		return (int)(cpu + (unsigned)__builtin_ctzll(word));
	}
	return -1;
}

static int cpus_number(const char **p, unsigned long *ret)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*ret = strtoul(*p, &end, 10);
	if (errno || *ret >= CG_MAX_CPUS)
		return -ERANGE;
	*p = end;
	return 0;
}

int cg_cpus_parse(const char *list, struct cg_cpus *ret)
{
	struct cg_cpus s = {0};
	const char *p = list;

	while (isspace((unsigned char)*p))
		p++;
	while (*p && !isspace((unsigned char)*p)) {
		unsigned long lo, hi;

		if (cpus_number(&p, &lo) < 0)
			return -EINVAL;
		hi = lo;
		if (*p == '-') {
			p++;
			if (cpus_number(&p, &hi) < 0 || hi < lo)
				return -EINVAL;
		}
		for (unsigned long c = lo; c <= hi; c++)
			cg_cpus_set(&s, (unsigned)c);
		if (*p == ',')
			p++;
		else if (*p && !isspace((unsigned char)*p))
			return -EINVAL;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return -EINVAL;
	*ret = s;
	return 0;
}

void cg_cpus_format(const struct cg_cpus *s, char *buf, size_t len)
{
	size_t off = 0;
	int cpu = cg_cpus_next(s, 0);

	if (len)
		buf[0] = '\0';
	while (cpu >= 0 && off < len) {
		int end = cpu;
		int n;

		while (end + 1 < CG_MAX_CPUS && cg_cpus_test(s, (unsigned)end + 1))
			end++;
		if (end == cpu)
			n = snprintf(buf + off, len - off, "%s%d", off ? "," : "", cpu);
		else
			n = snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", cpu, end);
		if (n < 0)
			break;
		off += (size_t)n;
		cpu = cg_cpus_next(s, (unsigned)end + 1);
	}
}
