/* What the command line names as a runtime, made a manifest: a shipped name or a manifest file (man_load), a
 * local build by its path (a host manifest of the family its file name says), or an npm spec `family@version`
 * (the family's platform package, resolved through the machine's npm configuration). docs/manifest.md. */
#ifndef HX_SPEC_H
#define HX_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "image/manifest.h"

/* spec is "node24", "./mine.json", "./out/Release/node" or "node@26.10.0"; ret->spec keeps it when it was not a
 * name or a manifest. A range (node@22) is resolved to one version, said in note ("" when there is nothing to
 * say). On failure nothing is left to free in ret. */
int img_spec_load(const char *spec, struct manifest *ret, char *note, size_t note_len, struct hx_err *err);
/* An npm spec's manifest written into the cache (<cache>/manifests/<name>.json) unless there: later runs of
 * the exact version take it without the registry, and images ls lists it. A no-op for other manifests. */
int img_spec_pin(const struct manifest *m, struct hx_err *err);
/* The pinned specs' manifests in the cache, by name ("node-26.10.0"), into names (at most max). */
size_t img_spec_pins(char names[][64], size_t max);
/* The version of a registry document (its text) that range names: itself (26.10.0), the newest release of a
 * prefix (22, 22.5; no pre-release), or dist-tags.latest; false when none (or the range is not one). */
bool img_npm_pick(const char *doc, const char *range, char *ret, size_t len);
/* The version a version command's first line names: "v26.0.0-pre" -> "26.0.0-pre", "deno 2.9.6 (stable…)" ->
 * "2.9.6"; "" when it names none. */
void img_version_of(const char *line, char *buf, size_t len);

#endif
