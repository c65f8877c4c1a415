/* A minimal io_uring over the raw syscalls (no liburing): the rings, a probe of the opcodes the load client
 * uses, submission in batches with a timed wait, and a ring of provided receive buffers. */
#ifndef HX_URING_H
#define HX_URING_H

#include <linux/io_uring.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* The task-work modes uring_setup tries, best first (OFF: none, io_uring refused). */
enum uring_mode { URING_DEFER, URING_COOP, URING_DEFAULT, URING_OFF, URING_NR_MODES };

struct uring {
	int fd;
	unsigned features, flags; /* flags: the IORING_SETUP_* the kernel accepted */
	enum uring_mode mode;	  /* the one it accepted */
	char refused[96];	  /* why a better mode was not taken ("" when the first was) */
	unsigned *sq_head, *sq_tail, *sq_array, sq_mask, sq_entries;
	unsigned sq_pending; /* prepared, not yet passed to the kernel */
	struct io_uring_sqe *sqes;
	unsigned *cq_head, *cq_tail, cq_mask;
	struct io_uring_cqe *cqes;
	void *sq_map, *cq_map;
	size_t sq_map_len, cq_map_len, sqes_len;
};

/* A ring of n receive buffers of size bytes each (n a power of two), registered as group bgid: the kernel
 * picks one for each multishot receive completion; the client hands it back once parsed. */
struct uring_bufs {
	struct io_uring_buf_ring *ring;
	char *mem;
	size_t ring_len, mem_len;
	unsigned n, size;
	uint16_t bgid, tail;
};

/* Why io_uring cannot be used here, or NULL when it can: the kernel refuses io_uring_setup (ENOSYS, EPERM
 * from a seccomp filter or kernel.io_uring_disabled), or lacks an opcode or feature the client needs
 * (multishot receive and provided-buffer rings: Linux 6.0). Asked once, the answer cached. */
const char *uring_unsupported(void);

/* The best mode the client may ask for: URING_DEFER unless HARNESS_LOAD_URING=coop|default|off starts lower, so
 * that the fallbacks an older kernel takes can be run and measured on a newer one (off: as if io_uring_setup
 * were refused, as kernel.io_uring_disabled or a seccomp filter does). Exit 2 for any other value. */
int uring_mode_limit(enum uring_mode *ret, struct hx_err *err);
/* The names of the IORING_SETUP_ flags of a ring's mode, comma-separated ("single_issuer,defer_taskrun"). */
void uring_flags_format(unsigned flags, char *buf, size_t len);

/* entries: the submission ring's size (the completion ring is twice it, as the kernel's default).
 * disabled: the ring waits for uring_enable, and the thread that calls it is the only one that may submit
 * (set up by one thread, used by another: SINGLE_ISSUER binds the ring to its first submitter). */
int uring_setup(struct uring *r, unsigned entries, bool disabled, struct hx_err *err);
int uring_enable(struct uring *r);
void uring_close(struct uring *r);
/* The next free submission entry, zeroed; NULL when the ring is full (submit first). */
struct io_uring_sqe *uring_sqe(struct uring *r);
/* Pass every prepared entry to the kernel and wait for at least wait_nr completions, at most timeout_ns
 * (0: do not wait). Returns the number submitted, or -errno (-ETIME when the wait timed out is 0). */
int uring_enter(struct uring *r, unsigned wait_nr, uint64_t timeout_ns);
/* Completions: peek the next, then advance past the ones handled (one store for a batch). */
static inline struct io_uring_cqe *uring_cqe_at(struct uring *r, unsigned head)
{
	return &r->cqes[head & r->cq_mask];
}
static inline unsigned uring_cq_ready(const struct uring *r, unsigned *ret_head)
{
	*ret_head = *r->cq_head;
	return __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) - *ret_head;
}
static inline void uring_cq_advance(struct uring *r, unsigned n)
{
	__atomic_store_n(r->cq_head, *r->cq_head + n, __ATOMIC_RELEASE);
}

int uring_bufs_setup(struct uring *r, struct uring_bufs *b, uint16_t bgid, unsigned n, unsigned size,
		     struct hx_err *err);
void uring_bufs_close(struct uring *r, struct uring_bufs *b);
static inline char *uring_buf(const struct uring_bufs *b, unsigned bid)
{
	return b->mem + (size_t)bid * b->size;
}
/* Give buffer bid back to the kernel (visible at once). */
void uring_bufs_put(struct uring_bufs *b, unsigned bid);

#endif
