/* io_uring through its three syscalls and <linux/io_uring.h>: set-up with the cheapest task-work mode the
 * kernel has, the opcode probe, batched submission with a timed wait, provided-buffer rings. */
#include "load/uring.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"

static int sys_setup(unsigned entries, struct io_uring_params *p)
{
	return (int)syscall(__NR_io_uring_setup, entries, p);
}

static int sys_enter(int fd, unsigned submit, unsigned wait_nr, unsigned flags, const void *arg, size_t argsz)
{
	return (int)syscall(__NR_io_uring_enter, fd, submit, wait_nr, flags, arg, argsz);
}

static int sys_register(int fd, unsigned op, const void *arg, unsigned nr)
{
	return (int)syscall(__NR_io_uring_register, fd, op, arg, nr);
}

static int map_rings(struct uring *r, const struct io_uring_params *p)
{
	r->sq_map_len = p->sq_off.array + p->sq_entries * sizeof(unsigned);
	r->cq_map_len = p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);
	if (p->features & IORING_FEAT_SINGLE_MMAP)
		r->sq_map_len = r->cq_map_len = r->sq_map_len > r->cq_map_len ? r->sq_map_len : r->cq_map_len;
	r->sq_map =
		mmap(NULL, r->sq_map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	if (r->sq_map == MAP_FAILED)
		return -errno;
	r->cq_map = r->sq_map;
	if (!(p->features & IORING_FEAT_SINGLE_MMAP)) {
		r->cq_map = mmap(NULL, r->cq_map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
				 IORING_OFF_CQ_RING);
		if (r->cq_map == MAP_FAILED)
			return -errno;
	}
	r->sqes_len = p->sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -errno;
	r->sq_head = (unsigned *)((char *)r->sq_map + p->sq_off.head);
	r->sq_tail = (unsigned *)((char *)r->sq_map + p->sq_off.tail);
	r->sq_array = (unsigned *)((char *)r->sq_map + p->sq_off.array);
	r->sq_mask = *(unsigned *)((char *)r->sq_map + p->sq_off.ring_mask);
	r->sq_entries = p->sq_entries;
	r->cq_head = (unsigned *)((char *)r->cq_map + p->cq_off.head);
	r->cq_tail = (unsigned *)((char *)r->cq_map + p->cq_off.tail);
	r->cq_mask = *(unsigned *)((char *)r->cq_map + p->cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)r->cq_map + p->cq_off.cqes);
	/* the index array is the identity: entry i is slot i */
	for (unsigned i = 0; i < r->sq_entries; i++)
		r->sq_array[i] = i;
	return 0;
}

/* Task work (the receive copies) run only when this thread enters the kernel, never by interrupting it:
 * DEFER_TASKRUN (Linux 6.1, with SINGLE_ISSUER), else COOP_TASKRUN (5.19), else the default. */
static const unsigned uring_modes[] = {
	[URING_DEFER] = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	[URING_COOP] = IORING_SETUP_COOP_TASKRUN,
	[URING_DEFAULT] = 0,
};

#define URING_LIMIT_ENV "HARNESS_LOAD_URING"
static const char *const uring_limit_values[URING_NR_MODES] = {"defer", "coop", "default", "off"};

int uring_mode_limit(enum uring_mode *ret, struct hx_err *err)
{
	const char *v = getenv(URING_LIMIT_ENV);

	*ret = URING_DEFER;
	if (!v || !v[0])
		return 0;
	for (int i = 0; i < URING_NR_MODES; i++)
		if (strcmp(v, uring_limit_values[i]) == 0) {
			*ret = (enum uring_mode)i;
			return 0;
		}
	return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s takes defer, coop, default or off, not '%s'", URING_LIMIT_ENV,
		       v);
}

static const struct {
	unsigned flag;
	const char *name;
} uring_flag_names[] = {
	{IORING_SETUP_SINGLE_ISSUER, "single_issuer"},
	{IORING_SETUP_DEFER_TASKRUN, "defer_taskrun"},
	{IORING_SETUP_COOP_TASKRUN, "coop_taskrun"},
};

void uring_flags_format(unsigned flags, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < HX_ARRAY_SIZE(uring_flag_names); i++)
		if ((flags & uring_flag_names[i].flag) && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", uring_flag_names[i].name);
}

/* The modes from the limit down until the kernel takes one; EINVAL is an unknown flag (an older kernel), any
 * other refusal ends the search. */
static int setup_modes(struct uring *r, unsigned entries, bool disabled, struct io_uring_params *p, struct hx_err *err)
{
	enum uring_mode first;
	int fd = -1, e = EPERM;

	if (uring_mode_limit(&first, err) < 0)
		return -err->errnum;
	if (first == URING_OFF)
		return hx_fail(err, HX_EXIT_HOST, EPERM, "io_uring_setup: refused (%s=off)", URING_LIMIT_ENV);
	if (first != URING_DEFER)
		snprintf(r->refused, sizeof(r->refused), "%s=%s", URING_LIMIT_ENV, uring_limit_values[first]);
	for (unsigned i = first; i < URING_OFF && fd < 0; i++) {
		memset(p, 0, sizeof(*p));
		p->flags = uring_modes[i] | (disabled ? IORING_SETUP_R_DISABLED : 0);
		fd = sys_setup(entries, p);
		e = errno;
		r->mode = (enum uring_mode)i;
		if (fd < 0 && e != EINVAL)
			break;
		if (fd < 0 && !r->refused[0])
			snprintf(r->refused, sizeof(r->refused), "the kernel refused %s (EINVAL: before Linux %s)",
				 i == URING_DEFER ? "SINGLE_ISSUER|DEFER_TASKRUN" : "COOP_TASKRUN",
				 i == URING_DEFER ? "6.1" : "5.19");
	}
	if (fd < 0)
		return hx_fail(err, HX_EXIT_HOST, e, "io_uring_setup: %s", strerror(e));
	return fd;
}

int uring_setup(struct uring *r, unsigned entries, bool disabled, struct hx_err *err)
{
	struct io_uring_params p;
	int fd, e;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if ((fd = setup_modes(r, entries, disabled, &p, err)) < 0)
		return fd;
	r->fd = fd;
	r->features = p.features;
	r->flags = p.flags & ~(unsigned)IORING_SETUP_R_DISABLED;
	if ((e = -map_rings(r, &p)) != 0) {
		uring_close(r);
		return hx_fail(err, HX_EXIT_HOST, e, "io_uring: mapping the rings: %s", strerror(e));
	}
	return 0;
}

int uring_enable(struct uring *r)
{
	return sys_register(r->fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0) < 0 ? -errno : 0;
}

void uring_close(struct uring *r)
{
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_len);
	if (r->cq_map && r->cq_map != MAP_FAILED && r->cq_map != r->sq_map)
		munmap(r->cq_map, r->cq_map_len);
	if (r->sq_map && r->sq_map != MAP_FAILED)
		munmap(r->sq_map, r->sq_map_len);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

struct io_uring_sqe *uring_sqe(struct uring *r)
{
	unsigned tail = *r->sq_tail + r->sq_pending;
	struct io_uring_sqe *sqe;

	if (tail - __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE) >= r->sq_entries)
		return NULL;
	sqe = &r->sqes[tail & r->sq_mask];
	memset(sqe, 0, sizeof(*sqe));
	r->sq_pending++;
	return sqe;
}

int uring_enter(struct uring *r, unsigned wait_nr, uint64_t timeout_ns)
{
	struct __kernel_timespec ts = {.tv_sec = (long long)(timeout_ns / 1000000000u),
				       .tv_nsec = (long long)(timeout_ns % 1000000000u)};
	struct io_uring_getevents_arg arg = {.ts = (uint64_t)(uintptr_t)&ts};
	unsigned tail = *r->sq_tail + r->sq_pending, flags = 0, submit;
	int n;

	__atomic_store_n(r->sq_tail, tail, __ATOMIC_RELEASE);
	r->sq_pending = 0;
	/* entries an earlier call left (the kernel stops short when it cannot take more) go too */
	submit = tail - __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);
	if (wait_nr || (r->flags & IORING_SETUP_DEFER_TASKRUN))
		flags |= IORING_ENTER_GETEVENTS;
	if (wait_nr)
		flags |= IORING_ENTER_EXT_ARG;
	do
		n = sys_enter(r->fd, submit, wait_nr, flags, wait_nr ? &arg : NULL, wait_nr ? sizeof(arg) : 0);
	while (n < 0 && errno == EINTR && submit == 0);
	if (n < 0)
		return errno == ETIME || errno == EINTR ? 0 : -errno;
	return n;
}

int uring_bufs_setup(struct uring *r, struct uring_bufs *b, uint16_t bgid, unsigned n, unsigned size,
		     struct hx_err *err)
{
	struct io_uring_buf_reg reg = {.ring_entries = n, .bgid = bgid};

	memset(b, 0, sizeof(*b));
	b->ring_len = n * sizeof(struct io_uring_buf);
	b->mem_len = (size_t)n * size;
	b->ring = mmap(NULL, b->ring_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b->mem = mmap(NULL, b->mem_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->ring == MAP_FAILED || b->mem == MAP_FAILED) {
		uring_bufs_close(r, b);
		return hx_syserr(err, "io_uring: buffers");
	}
	b->n = n;
	b->size = size;
	b->bgid = bgid;
	reg.ring_addr = (uint64_t)(uintptr_t)b->ring;
	if (sys_register(r->fd, IORING_REGISTER_PBUF_RING, &reg, 1) < 0) {
		int e = errno;

		uring_bufs_close(r, b);
		return hx_fail(err, HX_EXIT_HOST, e, "io_uring: registering the buffer ring: %s", strerror(e));
	}
	for (unsigned i = 0; i < n; i++)
		uring_bufs_put(b, i);
	return 0;
}

void uring_bufs_close(struct uring *r, struct uring_bufs *b)
{
	struct io_uring_buf_reg reg = {.bgid = b->bgid};

	if (b->n && r->fd >= 0)
		sys_register(r->fd, IORING_UNREGISTER_PBUF_RING, &reg, 1);
	if (b->ring && b->ring != MAP_FAILED)
		munmap(b->ring, b->ring_len);
	if (b->mem && b->mem != MAP_FAILED)
		munmap(b->mem, b->mem_len);
	memset(b, 0, sizeof(*b));
}

void uring_bufs_put(struct uring_bufs *b, unsigned bid)
{
	struct io_uring_buf *e = &b->ring->bufs[b->tail & (b->n - 1)];

	e->addr = (uint64_t)(uintptr_t)uring_buf(b, bid);
	e->len = b->size;
	e->bid = (uint16_t)bid;
	b->tail++;
	__atomic_store_n(&b->ring->tail, b->tail, __ATOMIC_RELEASE);
}

/* The opcodes the load client submits. */
static const uint8_t uring_ops[] = {IORING_OP_CONNECT, IORING_OP_SEND, IORING_OP_RECV};

static const char *probe_ops(struct uring *r)
{
	size_t len = sizeof(struct io_uring_probe) + 256 * sizeof(struct io_uring_probe_op);
	_cleanup_free_ struct io_uring_probe *p = calloc(1, len);

	if (!p)
		return "out of memory";
	if (sys_register(r->fd, IORING_REGISTER_PROBE, p, 256) < 0)
		return "the kernel has no opcode probe (Linux < 5.6)";
	for (size_t i = 0; i < HX_ARRAY_SIZE(uring_ops); i++)
		if (uring_ops[i] > p->last_op || !(p->ops[uring_ops[i]].flags & IO_URING_OP_SUPPORTED))
			return "the kernel lacks connect, send or recv in io_uring (Linux < 5.6)";
	if (!(r->features & IORING_FEAT_EXT_ARG))
		return "the kernel has no timed wait in io_uring_enter (Linux < 5.11)";
	return NULL;
}

/* One byte through a socketpair: a multishot receive into a provided buffer must deliver it and stay armed
 * (IORING_CQE_F_MORE), which only Linux 6.0 and later do. */
static const char *probe_multishot(struct uring *r)
{
	struct uring_bufs b;
	struct hx_err err = {0};
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int sv[2];
	unsigned head;
	const char *why = "multishot receive into provided buffers failed (Linux < 6.0)";

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return "socketpair failed";
	if (uring_bufs_setup(r, &b, 0, 2, 64, &err) < 0) {
		close(sv[0]);
		close(sv[1]);
		return "the kernel has no provided-buffer rings (Linux < 5.19)";
	}
	sqe = uring_sqe(r);
	sqe->opcode = IORING_OP_RECV;
	sqe->fd = sv[0];
	sqe->ioprio = IORING_RECV_MULTISHOT;
	sqe->flags = IOSQE_BUFFER_SELECT;
	sqe->buf_group = 0;
	if (uring_enter(r, 0, 0) == 1 && write(sv[1], "x", 1) == 1 && uring_enter(r, 1, 1000000000u) >= 0 &&
	    uring_cq_ready(r, &head) >= 1) {
		cqe = uring_cqe_at(r, head);
		if (cqe->res == 1 && (cqe->flags & IORING_CQE_F_BUFFER) && (cqe->flags & IORING_CQE_F_MORE) &&
		    uring_buf(&b, cqe->flags >> IORING_CQE_BUFFER_SHIFT)[0] == 'x')
			why = NULL;
		uring_cq_advance(r, 1);
	}
	close(sv[0]);
	close(sv[1]);
	uring_bufs_close(r, &b);
	return why;
}

static const char *probe(void)
{
	static char why[160];
	struct uring r;
	struct hx_err err = {0};
	const char *w;

	if (uring_setup(&r, 8, false, &err) < 0) {
		snprintf(why, sizeof(why), "%s", err.msg);
		return why;
	}
	w = probe_ops(&r);
	if (!w)
		w = probe_multishot(&r);
	uring_close(&r);
	return w;
}

const char *uring_unsupported(void)
{
	static const char *why;
	static bool asked;

	if (!asked) {
		why = probe();
		asked = true;
	}
	return why;
}
