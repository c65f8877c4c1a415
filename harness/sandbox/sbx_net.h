/* One network namespace per run, with only `lo` up; every sandbox of the run joins it. */
#ifndef HX_SBX_NET_H
#define HX_SBX_NET_H

#include <stddef.h>

#include "base/err.h"

/* Create the run's namespace; *ret_fd keeps it alive until sbx_net_cleanup. */
int sbx_net_prepare(int *ret_fd, struct hx_err *err);
/* Keep ports out of the namespace's ephemeral range (net.ipv4.ip_local_reserved_ports, per namespace): a
 * readiness probe that connects before its server listens would otherwise, now and then, be given the
 * server's own port as its source and connect to itself (TCP simultaneous open), holding the port the
 * server then fails to bind ("Address already in use"). Listening on a reserved port works as before. */
int sbx_net_reserve_ports(int netns_fd, const unsigned *ports, size_t n, struct hx_err *err);
/* A sandbox's netns_fd for a namespace of its own, made by its clone (CLONE_NEWNET) with `lo` up in the child:
 * for a sandbox that shares its network with none (harness exec without --client), it saves the short-lived
 * child, its pipes and its reaping that sbx_net_prepare costs. */
#define SBX_NET_OWN (-2)
/* In a sandbox child: join the run's namespace (netns_fd), or bring `lo` up in its own (SBX_NET_OWN).
 * Returns -errno. */
int sbx_net_apply_in_child(int netns_fd);
void sbx_net_cleanup(int *fd);

#endif
