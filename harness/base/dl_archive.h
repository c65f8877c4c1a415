/* libarchive through its table (base/dl.h): include this, never <archive.h>; calls read as libarchive's. */
#ifndef HX_DL_ARCHIVE_H
#define HX_DL_ARCHIVE_H

#include <archive.h>
#include <archive_entry.h>

#include "base/dl.h"

#define DL_ARCHIVE_FNS(X)                  \
	X(archive_entry_filetype)          \
	X(archive_entry_hardlink)          \
	X(archive_entry_mode)              \
	X(archive_entry_pathname)          \
	X(archive_entry_perm)              \
	X(archive_entry_set_hardlink)      \
	X(archive_entry_set_pathname)      \
	X(archive_entry_set_perm)          \
	X(archive_entry_size)              \
	X(archive_entry_symlink)           \
	X(archive_error_string)            \
	X(archive_read_data_block)         \
	X(archive_read_free)               \
	X(archive_read_new)                \
	X(archive_read_next_header)        \
	X(archive_read_open_filename)      \
	X(archive_read_support_filter_all) \
	X(archive_read_support_format_tar) \
	X(archive_read_support_format_zip) \
	X(archive_write_data_block)        \
	X(archive_write_disk_new)          \
	X(archive_write_disk_set_options)  \
	X(archive_write_finish_entry)      \
	X(archive_write_free)              \
	X(archive_write_header)

struct dl_archive_fns {
	DL_ARCHIVE_FNS(DL_FIELD)
};
extern struct dl_archive_fns dl_archive_fn;
extern struct dl_lib dl_archive;

static inline const struct dl_archive_fns *dl_archive_get(void)
{
	dl_need(&dl_archive);
	return &dl_archive_fn;
}

#ifndef DL_NO_REDIRECT
#define archive_entry_filetype		(*dl_archive_get()->archive_entry_filetype)
#define archive_entry_hardlink		(*dl_archive_get()->archive_entry_hardlink)
#define archive_entry_mode		(*dl_archive_get()->archive_entry_mode)
#define archive_entry_pathname		(*dl_archive_get()->archive_entry_pathname)
#define archive_entry_perm		(*dl_archive_get()->archive_entry_perm)
#define archive_entry_set_hardlink	(*dl_archive_get()->archive_entry_set_hardlink)
#define archive_entry_set_pathname	(*dl_archive_get()->archive_entry_set_pathname)
#define archive_entry_set_perm		(*dl_archive_get()->archive_entry_set_perm)
#define archive_entry_size		(*dl_archive_get()->archive_entry_size)
#define archive_entry_symlink		(*dl_archive_get()->archive_entry_symlink)
#define archive_error_string		(*dl_archive_get()->archive_error_string)
#define archive_read_data_block		(*dl_archive_get()->archive_read_data_block)
#define archive_read_free		(*dl_archive_get()->archive_read_free)
#define archive_read_new		(*dl_archive_get()->archive_read_new)
#define archive_read_next_header	(*dl_archive_get()->archive_read_next_header)
#define archive_read_open_filename	(*dl_archive_get()->archive_read_open_filename)
#define archive_read_support_filter_all (*dl_archive_get()->archive_read_support_filter_all)
#define archive_read_support_format_tar (*dl_archive_get()->archive_read_support_format_tar)
#define archive_read_support_format_zip (*dl_archive_get()->archive_read_support_format_zip)
#define archive_write_data_block	(*dl_archive_get()->archive_write_data_block)
#define archive_write_disk_new		(*dl_archive_get()->archive_write_disk_new)
#define archive_write_disk_set_options	(*dl_archive_get()->archive_write_disk_set_options)
#define archive_write_finish_entry	(*dl_archive_get()->archive_write_finish_entry)
#define archive_write_free		(*dl_archive_get()->archive_write_free)
#define archive_write_header		(*dl_archive_get()->archive_write_header)
#endif

#endif
