/* The bounded copy of a payload's output, run by the sandbox's init (in the slice: its cost is the payload's). */
#include "sandbox/sbx_out.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int sbx_out_open(struct sbx_out *o, int out_fd, int err_fd, uint64_t max)
{
	int files[2] = {out_fd, err_fd};

	o->n = 0;
	o->max = max ? max : SBX_OUT_MAX;
	for (int i = 0; i < 2 && files[i] >= 0; i++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0)
			return -errno;
		o->s[i] = (struct sbx_out_stream){.rd = p[0], .wr = p[1], .file = files[i]};
		o->n++;
	}
	return 0;
}

int sbx_out_apply_in_payload(const struct sbx_out *o)
{
	if (o->n == 0)
		return 0;
	if (dup2(o->s[0].wr, 1) < 0 || dup2(o->s[o->n - 1].wr, 2) < 0)
		return -errno;
	return 0;
}

void sbx_out_init_side(struct sbx_out *o, int *keep, size_t *n)
{
	for (int i = 0; i < o->n; i++) {
		close(o->s[i].wr);
		o->s[i].wr = -1;
		fcntl(o->s[i].rd, F_SETFL, O_NONBLOCK);
		keep[(*n)++] = o->s[i].rd;
		keep[(*n)++] = o->s[i].file;
	}
}

/* False when the file's reader is gone (EPIPE). */
static bool write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EPIPE)
			return false;
		if (w <= 0)
			return true; /* a full disk loses output, never the payload */
		p += w;
		len -= (size_t)w;
	}
	return true;
}

static void to_tail(struct sbx_out_stream *s, const char *p, size_t len)
{
	if (len >= SBX_OUT_TAIL) {
		p += len - SBX_OUT_TAIL;
		len = SBX_OUT_TAIL;
	}
	while (len > 0) {
		size_t k = SBX_OUT_TAIL - s->tail_pos < len ? SBX_OUT_TAIL - s->tail_pos : len;

		memcpy(s->tail + s->tail_pos, p, k);
		s->tail_pos = (s->tail_pos + k) % SBX_OUT_TAIL;
		s->tail_len = s->tail_len + k > SBX_OUT_TAIL ? SBX_OUT_TAIL : s->tail_len + k;
		p += k;
		len -= k;
	}
}

bool sbx_out_pump(struct sbx_out *o, int i)
{
	struct sbx_out_stream *s = &o->s[i];
	char buf[16384];

	for (;;) {
		ssize_t n = read(s->rd, buf, sizeof(buf));
		size_t head;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN;
		if (n == 0)
			return false;
		head = s->kept < o->max ? (size_t)(o->max - s->kept < (uint64_t)n ? o->max - s->kept : (uint64_t)n) : 0;
		if (!write_all(s->file, buf, head)) {
			/* the file is a pipe whose reader has gone: so is the payload's (its next write fails, as it
			 * would without a sandbox between: harness ab closes the load client's pipe to end it) */
			close(s->rd);
			s->rd = -1;
			return false;
		}
		s->kept += head;
		if ((size_t)n > head) {
			uint64_t gone = s->tail_len + ((size_t)n - head) > SBX_OUT_TAIL
						? s->tail_len + ((size_t)n - head) - SBX_OUT_TAIL
						: 0;

			s->dropped += gone;
			to_tail(s, buf + head, (size_t)n - head);
		}
	}
}

void sbx_out_finish(struct sbx_out *o)
{
	for (int i = 0; i < o->n; i++) {
		struct sbx_out_stream *s = &o->s[i];
		char note[160];
		size_t start;

		if (s->rd < 0)
			continue;   /* its reader went away */
		sbx_out_pump(o, i); /* no writer is left: this reads to the end */
		if (s->dropped) {
			int len = snprintf(note, sizeof(note),
					   "\n[harness: %" PRIu64 " bytes of output dropped here: the first %" PRIu64
					   " and the last %zu are kept]\n",
					   s->dropped, s->kept, s->tail_len);
			write_all(s->file, note, (size_t)len);
		}
		start = s->tail_len < SBX_OUT_TAIL ? 0 : s->tail_pos;
		write_all(s->file, s->tail + start, s->tail_len - start);
		write_all(s->file, s->tail, start);
		close(s->rd);
	}
	o->n = 0;
}
