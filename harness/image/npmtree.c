/* The plan of a lock file's install: its nodes, their edges, and what npm ci would leave out (npm 11's arborist:
 * build-ideal-tree.js #checkEngineAndPlatform, optional-set.js, gather-dep-set.js). Pure: no file is touched. */
#include "image/npmtree.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "base/valid.h"

const struct npt_platform *npt_host(void)
{
	static const struct npt_platform host = {
		.os = "linux",
#if defined(__x86_64__)
		.cpu = "x64",
#elif defined(__aarch64__)
		.cpu = "arm64",
#else
		.cpu = "unknown",
#endif
#if defined(__GLIBC__)
		.libc = "glibc",
#else
		.libc = "musl",
#endif
	};
	return &host;
}

static char *dup_or_null(const cJSON *s)
{
	return cJSON_IsString(s) ? strdup(s->valuestring) : NULL;
}

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

void npt_plan_free(struct npt_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct npt_node *n = &p->nodes[i];

		for (size_t b = 0; b < n->nbins; b++) {
			free(n->bins[b].name);
			free(n->bins[b].target);
		}
		free(n->bins);
		free(n->key);
		free(n->name);
		free(n->version);
		free(n->resolved);
		free(n->integrity);
		free(n->missing);
	}
	free(p->nodes);
	free(p->edges);
	free(p->by_key);
	memset(p, 0, sizeof(*p));
}

/* npm-install-checks' checkList: none of the negated values, and one of the others when there are any. */
static bool list_accepts(const cJSON *list, const char *value)
{
	const cJSON *it;
	int n = 0, negated = 0;
	bool match = false;

	if (!list)
		return true;
	if (cJSON_IsString(list))
		return strcmp(list->valuestring, "any") == 0 || strcmp(list->valuestring, value) == 0 ||
		       (list->valuestring[0] == '!' && strcmp(list->valuestring + 1, value) != 0);
	cJSON_ArrayForEach (it, list) {
		const char *v = cJSON_IsString(it) ? it->valuestring : "";

		n++;
		if (v[0] == '!') {
			negated++;
			if (strcmp(v + 1, value) == 0)
				return false;
		} else {
			match = match || strcmp(v, value) == 0;
		}
	}
	if (n == 1 && cJSON_IsString(list->child) && strcmp(list->child->valuestring, "any") == 0)
		return true;
	return match || negated == n;
}

static bool platform_ok(const cJSON *e, const struct npt_platform *p)
{
	return list_accepts(get(e, "os"), p->os) && list_accepts(get(e, "cpu"), p->cpu) &&
	       list_accepts(get(e, "libc"), p->libc);
}

/* path.join('/', s).slice(1) of npm-normalize-package-bin: no empty, '.' or '..' component left. */
static char *norm_path(const char *s)
{
	size_t len = strlen(s);
	char *out = calloc(1, len + 2), *buf = strdup(s);
	size_t o = 0;

	if (!out || !buf) {
		free(out);
		free(buf);
		return NULL;
	}
	for (char *c = buf; *c; c++)
		if (*c == '\\')
			*c = '/';
	for (char *save = NULL, *part = strtok_r(buf, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		if (strcmp(part, ".") == 0)
			continue;
		if (strcmp(part, "..") == 0) {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			out[o] = '\0';
			continue;
		}
		o += (size_t)sprintf(out + o, "%s%s", o ? "/" : "", part);
	}
	if (o && len && (s[len - 1] == '/' || s[len - 1] == '\\'))
		out[o++] = '/';
	out[o] = '\0';
	free(buf);
	return out;
}

/* The link name of a bin key: basename(key with '\' and ':' as '/'), "" when nothing is left. */
static char *bin_name(const char *key)
{
	char *buf = strdup(key), *base, *n;

	if (!buf)
		return NULL;
	for (char *c = buf; *c; c++)
		if (*c == '\\' || *c == ':')
			*c = '/';
	for (size_t l = strlen(buf); l > 0 && buf[l - 1] == '/'; l--)
		buf[l - 1] = '\0';
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	n = strcmp(base, ".") == 0 || strcmp(base, "..") == 0 ? strdup("") : strdup(base);
	free(buf);
	return n;
}

static int add_bin(struct npt_node *n, const char *key, const char *target)
{
	char *name = bin_name(key), *t = norm_path(target);
	struct npt_bin *nb;

	if (!name || !t || !name[0] || !t[0]) {
		free(name);
		free(t);
		return name && t ? 0 : -ENOMEM;
	}
	for (size_t i = 0; i < n->nbins; i++)
		if (strcmp(n->bins[i].name, name) == 0) { /* a later key of the same name wins, as in a JS object */
			free(n->bins[i].target);
			n->bins[i].target = t;
			free(name);
			return 0;
		}
	nb = realloc(n->bins, (n->nbins + 1) * sizeof(*nb));
	if (!nb) {
		free(name);
		free(t);
		return -ENOMEM;
	}
	n->bins = nb;
	n->bins[n->nbins++] = (struct npt_bin){name, t};
	return 0;
}

/* The "bin" field as npm-normalize-package-bin leaves it: a string is the package's (unscoped) name's. */
static int node_bins(struct npt_node *n, const cJSON *bin)
{
	const cJSON *it, *obj = cJSON_IsObject(bin) ? bin : NULL;
	int rc = 0;

	if (cJSON_IsString(bin))
		return add_bin(n, n->name, bin->valuestring);
	cJSON_ArrayForEach (it, obj)
		if (cJSON_IsString(it) && (rc = add_bin(n, it->string, it->valuestring)) < 0)
			break;
	return rc;
}

/* "node_modules/a/node_modules/@s/b" -> "@s/b" */
static const char *key_name(const char *key)
{
	const char *last = NULL;

	for (const char *c = key; (c = strstr(c, "node_modules/")); c += 13)
		if (c == key || c[-1] == '/')
			last = c + 13;
	return last ? last : key;
}

static const char *sri_algos[] = {"sha512", "sha384", "sha256", "sha1"};

/* Each token "<algo>-<base64>[?opts]" with a known algo and base64 of that digest's length. */
static bool sri_valid(const char *s)
{
	static const size_t b64[] = {88, 64, 44, 28};
	bool any = false;

	while (*s) {
		size_t len = strcspn(s, " \t\n"), known = 0;

		for (size_t i = 0; i < HX_ARRAY_SIZE(sri_algos) && len; i++) {
			size_t a = strlen(sri_algos[i]);

			if (len > a && strncmp(s, sri_algos[i], a) == 0 && s[a] == '-') {
				size_t body = strcspn(s + a + 1, "? \t\n");

				known = body == b64[i] ? 1 : 2;
			}
		}
		if (known == 2)
			return false;
		any = any || known == 1;
		s += len;
		s += strspn(s, " \t\n");
	}
	return any;
}

static int fail_entry(struct hx_err *err, const char *file, const char *key, const char *what)
{
	char field[320];

	snprintf(field, sizeof(field), "packages.%s", key[0] ? key : "\"\"");
	return hx_fail_field(err, file, field, "%s", what);
}

/* One "packages" entry into n. */
static int read_node(const char *file, const cJSON *e, struct npt_node *n, struct hx_err *err)
{
	const cJSON *name = get(e, "name");
	bool project = !e->string[0];

	if (!cJSON_IsObject(e))
		return fail_entry(err, file, e->string, "expected an object");
	if (cJSON_IsTrue(get(e, "link")))
		return fail_entry(err, file, e->string,
				  "a link to a folder (a workspace): harness installs only packages from the registry; "
				  "make the lock without workspaces");
	n->key = strdup(e->string);
	n->name = project || !cJSON_IsString(name) ? strdup(key_name(e->string)) : strdup(name->valuestring);
	n->version = project ? NULL : dup_or_null(get(e, "version"));
	n->resolved = dup_or_null(get(e, "resolved"));
	n->integrity = dup_or_null(get(e, "integrity"));
	n->optional = cJSON_IsTrue(get(e, "optional"));
	n->in_bundle = cJSON_IsTrue(get(e, "inBundle"));
	n->has_bundle =
		cJSON_GetArraySize(get(e, "bundleDependencies")) > 0 || cJSON_IsTrue(get(e, "bundleDependencies"));
	if (!n->key || !n->name || node_bins(n, get(e, "bin")) < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "%s: out of memory", file);
	if (project || n->in_bundle)
		return 0;
	if (!n->version && !n->resolved)
		return fail_entry(err, file, n->key,
				  "no version and no resolved URL: npm could not fetch it either; make the lock again "
				  "with npm install");
	if (!n->integrity)
		return fail_entry(err, file, n->key,
				  "no integrity: harness installs only what the lock can check; make the lock again "
				  "with npm install");
	if (!sri_valid(n->integrity))
		return fail_entry(err, file, n->key,
				  "integrity: not sha512-, sha384-, sha256- or sha1-<base64 of that digest>");
	return 0;
}

static int key_cmp_plan(const void *a, const void *b, void *plan)
{
	const struct npt_plan *p = plan;

	return strcmp(p->nodes[*(const size_t *)a].key, p->nodes[*(const size_t *)b].key);
}

long npt_find(const struct npt_plan *p, const char *key)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(p->nodes[p->by_key[mid]].key, key);

		if (c == 0)
			return (long)p->by_key[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Node.resolve of arborist: <from>/node_modules/<name>, then the same from each folder above. */
static long resolve_dep(const struct npt_plan *p, const char *from, const char *name)
{
	char key[8192], at[8192];

	snprintf(at, sizeof(at), "%s", from);
	for (;;) {
		char *cut;
		long i;

		snprintf(key, sizeof(key), "%s%snode_modules/%s", at, at[0] ? "/" : "", name);
		if ((i = npt_find(p, key)) >= 0)
			return i;
		if (!at[0])
			return -1;
		cut = strstr(at, "/node_modules/") ? at + strlen(at) : at;
		while (cut > at && strncmp(cut, "/node_modules/", 14) != 0)
			cut--;
		*cut = '\0';
	}
}

/* Edge types in the order arborist's Node loads them; a later one for the same name replaces the earlier. */
enum edge_type { EDGE_PEER, EDGE_PEER_OPTIONAL, EDGE_PROD, EDGE_OPTIONAL, EDGE_DEV };

struct dep_name {
	const char *name;
	enum edge_type type;
};

static void note_dep(struct dep_name *names, size_t *n, size_t max, const char *name, enum edge_type t)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(names[i].name, name) == 0) {
			names[i].type = t;
			return;
		}
	if (*n < max)
		names[(*n)++] = (struct dep_name){name, t};
}

static int node_edges(struct npt_plan *p, size_t from, const cJSON *e, size_t *cap)
{
	static const struct {
		const char *field;
		enum edge_type type;
	} kinds[] = {{"peerDependencies", EDGE_PEER},
		     {"dependencies", EDGE_PROD},
		     {"optionalDependencies", EDGE_OPTIONAL},
		     {"devDependencies", EDGE_DEV}};
	const cJSON *meta = get(e, "peerDependenciesMeta"), *it;
	size_t max = 0, n = 0;
	struct dep_name *names;

	for (size_t k = 0; k < HX_ARRAY_SIZE(kinds); k++)
		max += (size_t)cJSON_GetArraySize(get(e, kinds[k].field));
	names = calloc(max + 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t k = 0; k < HX_ARRAY_SIZE(kinds); k++) {
		if (kinds[k].type == EDGE_DEV && from != 0)
			continue; /* a package's devDependencies are its own business */
		cJSON_ArrayForEach (it, get(e, kinds[k].field)) {
			enum edge_type t = kinds[k].type;

			if (t == EDGE_PEER && cJSON_IsTrue(get(get(meta, it->string), "optional")))
				t = EDGE_PEER_OPTIONAL;
			note_dep(names, &n, max, it->string, t);
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (p->nedges == *cap) {
			struct npt_edge *ne = realloc(p->edges, (*cap * 2 + 16) * sizeof(*ne));

			if (!ne) {
				free(names);
				return -ENOMEM;
			}
			p->edges = ne;
			*cap = *cap * 2 + 16;
		}
		p->edges[p->nedges++] = (struct npt_edge){
			.from = from,
			.to = resolve_dep(p, p->nodes[from].key, names[i].name),
			.optional = names[i].type == EDGE_OPTIONAL || names[i].type == EDGE_PEER_OPTIONAL,
		};
	}
	free(names);
	return 0;
}

/* An edge gather-dep-set may follow: not into the seed set, not from a node already left out. */
static bool gather_ok(const struct npt_plan *p, const struct npt_edge *e, const bool *seed)
{
	return !seed[e->to] && !p->nodes[e->from].inert;
}

/* optionalSet(node) of arborist, marked inert: the node, the nodes that need it through required edges (up to
 * the optional edges that bound them), then what only they need. */
int npt_leave_out(struct npt_plan *p, size_t node)
{
	bool *seed = calloc(p->n, 1), *deps = calloc(p->n, 1), changed = true;
	size_t *order = calloc(p->n, sizeof(*order)), n = 0;

	if (!seed || !deps || !order) {
		free(seed);
		free(deps);
		free(order);
		return -ENOMEM;
	}
	seed[node] = true;
	order[n++] = node;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < p->nedges; i++)
			if (p->edges[i].to == (long)order[k] && !p->edges[i].optional && !seed[p->edges[i].from]) {
				seed[p->edges[i].from] = true;
				order[n++] = p->edges[i].from;
			}
	memcpy(deps, seed, p->n);
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < p->nedges; i++) {
			const struct npt_edge *e = &p->edges[i];

			if (e->from == order[k] && e->to >= 0 && gather_ok(p, e, seed) && !deps[e->to]) {
				deps[e->to] = true;
				order[n++] = (size_t)e->to;
			}
		}
	while (changed) {
		changed = false;
		for (size_t i = 0; i < p->nedges; i++) {
			const struct npt_edge *e = &p->edges[i];

			if (e->to >= 0 && deps[e->to] && !deps[e->from] && gather_ok(p, e, seed)) {
				deps[e->to] = false;
				changed = true;
			}
		}
	}
	for (size_t i = 0; i < p->n; i++)
		if (deps[i])
			p->nodes[i].inert = true;
	free(seed);
	free(deps);
	free(order);
	return 0;
}

/* npm ci refuses a required package of another platform (EBADPLATFORM) and leaves an optional one out. */
static int judge_platform(const char *file, struct npt_plan *p, const cJSON *packages, const struct npt_platform *pf,
			  struct hx_err *err)
{
	const cJSON *e;
	size_t i = 0;

	cJSON_ArrayForEach (e, packages) {
		struct npt_node *n = &p->nodes[i];

		if (i++ == 0 || n->inert || n->in_bundle || platform_ok(e, pf))
			continue;
		if (!n->optional)
			return hx_fail(err, HX_EXIT_HOST, ENOEXEC,
				       "%s: packages.%s: %s@%s is for another platform than this host's (%s %s %s), "
				       "and the lock does not call it optional",
				       file, n->key, n->name, n->version ? n->version : "", pf->os, pf->cpu, pf->libc);
		if (npt_leave_out(p, i - 1) < 0)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "%s: out of memory", file);
	}
	return 0;
}

static int plan_nodes(const char *file, const cJSON *packages, struct npt_plan *p, struct hx_err *err)
{
	const cJSON *e;
	size_t cap = 0;

	p->n = (size_t)cJSON_GetArraySize(packages);
	p->nodes = calloc(p->n + 1, sizeof(*p->nodes));
	p->by_key = calloc(p->n + 1, sizeof(*p->by_key));
	if (!p->nodes || !p->by_key)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "%s: out of memory", file);
	if (!packages->child || packages->child->string[0])
		return hx_fail_field(err, file, "packages", "expected the project (\"\") as its first entry");
	cJSON_ArrayForEach (e, packages)
		if (read_node(file, e, &p->nodes[cap++], err) < 0)
			return -err->errnum;
	for (size_t i = 0; i < p->n; i++)
		p->by_key[i] = i;
	qsort_r(p->by_key, p->n, sizeof(*p->by_key), key_cmp_plan, p);
	for (size_t i = 1; i < p->n; i++)
		if (strcmp(p->nodes[p->by_key[i]].key, p->nodes[p->by_key[i - 1]].key) == 0)
			return fail_entry(err, file, p->nodes[p->by_key[i]].key, "given twice");
	cap = 0;
	e = packages->child;
	for (size_t i = 0; i < p->n; i++, e = e->next)
		if (node_edges(p, i, e, &cap) < 0)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "%s: out of memory", file);
	return 0;
}

int npt_plan_lock(const char *file, const char *text, const struct npt_platform *pf, struct npt_plan *ret,
		  struct hx_err *err)
{
	const char *bad = valid_json_text(text, strlen(text));
	cJSON *root = bad ? NULL : cJSON_Parse(text);
	const cJSON *v = get(root, "lockfileVersion"), *packages = get(root, "packages");
	int rc;

	memset(ret, 0, sizeof(*ret));
	if (bad || !root)
		rc = hx_fail_field(err, file, NULL, "%s", bad ? bad : "not valid JSON");
	else if (!cJSON_IsNumber(v) || (v->valueint != 2 && v->valueint != 3))
		rc = hx_fail_field(err, file, "lockfileVersion", "expected 2 or 3 (made by npm 7 or later)");
	else if (!cJSON_IsObject(packages))
		rc = hx_fail_field(err, file, "packages", "expected an object");
	else if ((rc = plan_nodes(file, packages, ret, err)) == 0)
		rc = judge_platform(file, ret, packages, pf, err);
	cJSON_Delete(root);
	if (rc < 0)
		npt_plan_free(ret);
	return rc;
}

/* The first name not in skip whose range differs between a and b (one may lack it); NULL when none. */
static const char *kind_differs(const cJSON *a, const cJSON *b, const cJSON *skip, const char **ra, const char **rb)
{
	const cJSON *it;

	for (int pass = 0; pass < 2; pass++) {
		const cJSON *side = pass ? b : a;

		cJSON_ArrayForEach (it, side) {
			if (get(skip, it->string))
				continue;
			const cJSON *other = get(pass ? a : b, it->string);
			const char *mine = cJSON_IsString(it) ? it->valuestring : "?";
			const char *theirs = cJSON_IsString(other) ? other->valuestring : NULL;

			if (!theirs || strcmp(mine, theirs) != 0) {
				*ra = pass ? theirs : mine;
				*rb = pass ? mine : theirs;
				return it->string;
			}
		}
	}
	return NULL;
}

int npt_check_project(const char *pkg_file, const char *pkg_text, const char *lock_file, const char *lock_text,
		      struct hx_err *err)
{
	static const char *const kinds[] = {"dependencies", "devDependencies", "optionalDependencies",
					    "peerDependencies"};
	cJSON *pkg = valid_json_text(pkg_text, strlen(pkg_text)) ? NULL : cJSON_Parse(pkg_text);
	cJSON *lock = cJSON_Parse(lock_text);
	const cJSON *project = get(get(lock, "packages"), "");
	int rc = 0;

	if (!cJSON_IsObject(pkg))
		rc = hx_fail_field(err, pkg_file, NULL, "not a JSON object");
	for (size_t k = 0; k < HX_ARRAY_SIZE(kinds) && rc == 0; k++) {
		const char *ra = NULL, *rb = NULL;
		/* npm reads a name in both dependencies and optionalDependencies as optional only */
		const cJSON *skip = k == 0 ? get(pkg, "optionalDependencies") : NULL;
		const char *name = kind_differs(get(pkg, kinds[k]), get(project, kinds[k]), skip, &ra, &rb);

		if (name)
			rc = hx_fail(err, HX_EXIT_USAGE, EINVAL,
				     "%s and %s disagree: %s.%s is %s%s%s in package.json, %s%s%s in the lock (npm ci "
				     "would refuse it too): run npm install to make the lock again",
				     pkg_file, lock_file, kinds[k], name, ra ? "'" : "", ra ? ra : "absent",
				     ra ? "'" : "", rb ? "'" : "", rb ? rb : "absent", rb ? "'" : "");
	}
	cJSON_Delete(pkg);
	cJSON_Delete(lock);
	return rc;
}
