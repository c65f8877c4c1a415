/* One network namespace per run, with only `lo` up; every sandbox of the run joins it. */
#ifndef HX_SBX_NET_H
#define HX_SBX_NET_H

#include "base/err.h"

/* Create the run's namespace; *ret_fd keeps it alive until sbx_net_cleanup. */
int sbx_net_prepare(int *ret_fd, struct hx_err *err);
/* In a sandbox child: join it. Returns -errno. */
int sbx_net_apply_in_child(int netns_fd);
void sbx_net_cleanup(int *fd);

#endif
