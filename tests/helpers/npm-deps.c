/* npm-deps DIR: install DIR's package-lock.json as a run does (image/deps.c dep_ensure: harness's own install
 * into the image cache, $HARNESS_CACHE_DIR in tests) and print the node_modules folder; the trees it makes are
 * compared with npm ci's by tests/integration/npm-deps.bats and tests/npm-trees.sh. */
#include <stdio.h>

#include "base/err.h"
#include "image/deps.h"

int main(int argc, char **argv)
{
	struct hx_err err = {0};
	char path[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: npm-deps DIR\n");
		return 2;
	}
	if (dep_ensure(&(struct dep_src){"test", argv[1]}, path, sizeof(path), &err) < 0)
		return hx_report(&err);
	printf("%s\n", path);
	return 0;
}
