/* The document store's frames (docs/docstore.md): the requests the client writes, the answers it reads back
 * ({"id":N,"ok":true,"value":V} or {"id":N,"ok":false,"error":"..."}), and the documents it writes, made from
 * their key and version so that every read can be compared with what was written without keeping them. */
#ifndef HX_DSPROTO_H
#define HX_DSPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* The suite's scenarios, in the order they run (load/docstore.h). */
enum ds_scenario {
	DS_GET_HOT,
	DS_HAS,
	DS_SET_SEQ,
	DS_SET_PIPE,
	DS_ADD,
	DS_NESTED,
	DS_MIXED,
	DS_PAYLOAD,
	DS_SCAN,
	DS_CHURN,
	DS_SPIKE,
	DS_MEMORY,	 /* the memory run's load, read-back and rewrite: with a count of documents only */
	DS_MEMORY_AFTER, /* its read-back after harness restarted the store: named, never in "all" */
	DS_NR
};

/* "all": the published 11 and the memory run's first half (which runs only with its documents). */
#define DS_ALL (((1u << DS_NR) - 1) & ~(1u << DS_MEMORY_AFTER))

/* The published names ("payload-Nkb/set+get" with N the documents' KiB); payload's is ds_name's. */
extern const char *const ds_names[DS_NR];

/* "get-hot/sequential,has/sequential" or "all" into a mask of scenarios (names as ds_names, or the part
 * before the slash). */
int ds_parse_list(const char *list, unsigned *ret_mask, struct hx_err *err);
/* The name of a row's scenario as the table prints it (payload with its size). */
void ds_name(enum ds_scenario sc, unsigned payload_kib, char *buf, size_t len);
struct ds_answer {
	uint64_t id;
	bool ok;
	const char *value; /* the value's JSON text (ok), or the error's string without its quotes; in the frame */
	size_t value_len;
};

/* An answer frame into a; false when it is not one (a, then, says nothing). The value is taken as it is
 * written: what follows "value": up to the frame's closing brace, which must be valid JSON of one value. */
bool ds_answer_parse(const char *frame, size_t len, struct ds_answer *a);
/* The JSON text of one value: its length, or 0 when text does not start with one (strings, numbers, true,
 * false, null, arrays and objects nested up to 64 deep). */
size_t ds_json_span(const char *text, size_t len);
/* The elements of a JSON array's text; -1 when it is not an array. */
long ds_json_count(const char *text, size_t len);
/* A JSON integer's text as a number; false when it is not one (or null, taken as 0 when null_is_zero). */
bool ds_json_int(const char *text, size_t len, bool null_is_zero, int64_t *ret);

/* The document written under key at version: `len` characters of [a-z0-9] drawn from both, as a JSON string's
 * text (with its quotes) into out, which holds len + 2 bytes. Equal keys and versions give equal documents. */
void ds_doc(const char *key, uint64_t version, size_t len, char *out);
/* Whether text is exactly the document ds_doc makes of key, version and len. */
bool ds_doc_is(const char *text, size_t text_len, const char *key, uint64_t version, size_t len);

#endif
