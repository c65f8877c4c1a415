/* libFuzzer target: a lock file's install plan (image/npmtree.c) on arbitrary text; it must accept or refuse
 * with a message, and what it accepts must be safe to execute: the project first, keys unique, every edge inside
 * the plan, every bin a plain name and a target with no '..' component. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image/npmtree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int has_dotdot(const char *p)
{
	for (const char *c = p; (c = strstr(c, "..")); c += 2)
		if ((c == p || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
			return 1;
	return 0;
}

static void check_plan(const struct npt_plan *p)
{
	if (p->n == 0 || p->nodes[0].key[0])
		abort();
	for (size_t i = 0; i < p->n; i++) {
		const struct npt_node *n = &p->nodes[i];

		if (npt_find(p, n->key) != (long)i)
			abort();
		for (size_t b = 0; b < n->nbins; b++)
			if (!n->bins[b].name[0] || strchr(n->bins[b].name, '/') || !strcmp(n->bins[b].name, "..") ||
			    !strcmp(n->bins[b].name, ".") || !n->bins[b].target[0] || has_dotdot(n->bins[b].target) ||
			    n->bins[b].target[0] == '/')
				abort();
	}
	for (size_t e = 0; e < p->nedges; e++)
		if (p->edges[e].from >= p->n || p->edges[e].to >= (long)p->n || p->edges[e].to < -1)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct npt_platform pf = {"linux", "x64", "glibc"};
	char *text = malloc(size + 1);
	struct npt_plan p;
	struct hx_err err = {0};

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (npt_plan_lock("fuzz.json", text, &pf, &p, &err) == 0) {
		check_plan(&p);
		npt_plan_free(&p);
	} else if (!err.msg[0] || (err.exit != HX_EXIT_USAGE && err.exit != HX_EXIT_HOST)) {
		abort();
	}
	npt_check_project("p.json", text, "fuzz.json", text, &err);
	free(text);
	return 0;
}
