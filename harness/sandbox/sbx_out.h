/* Output that harness keeps (server logs, a script's metrics, the client's JSON): the payload writes into a pipe
 * that the sandbox's init drains into harness's file, keeping the first `max` bytes and the last SBX_OUT_TAIL,
 * so a payload that floods its output fills neither the host's disk nor harness's memory. */
#ifndef HX_SBX_OUT_H
#define HX_SBX_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBX_OUT_MAX  ((uint64_t)16 << 20) /* the default head kept per stream */
#define SBX_OUT_TAIL ((size_t)64 << 10)	  /* and the tail: where a failing program says why */

struct sbx_out_stream {
	int rd, wr, file;
	uint64_t kept, dropped;
	size_t tail_len, tail_pos; /* a ring of the last SBX_OUT_TAIL bytes past the head */
	char tail[SBX_OUT_TAIL];
};

struct sbx_out {
	struct sbx_out_stream s[2]; /* stdout (and stderr when it goes to the same file), stderr */
	int n;			    /* streams in use: 0 when nothing is kept */
	uint64_t max;
};

/* In the sandbox child, before the payload is forked: a pipe per kept stream. out_fd < 0: nothing is kept.
 * err_fd < 0: stderr goes with stdout. Returns -errno. */
int sbx_out_open(struct sbx_out *o, int out_fd, int err_fd, uint64_t max);
/* In the payload: its stdout and stderr become the pipes' write ends. Returns -errno. */
int sbx_out_apply_in_payload(const struct sbx_out *o);
/* In init, after the fork: close the write ends (so that the payload's exit ends the stream); the descriptors
 * init must keep are added to keep[*n]. */
void sbx_out_init_side(struct sbx_out *o, int *keep, size_t *n);
/* Move what stream i's pipe holds now into its file; false at end of stream, or when the file is a pipe whose
 * reader has gone (then the stream's pipe is closed too, so that the payload's writes fail as they would on the
 * file itself). */
bool sbx_out_pump(struct sbx_out *o, int i);
/* Once no writer is left: the rest, then the kept tail behind a line saying how much was dropped. */
void sbx_out_finish(struct sbx_out *o);

#endif
