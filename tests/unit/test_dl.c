/* The libraries opened on first use (base/dl.h): every table entry is the library's own function, and a
 * library that is absent or lacks a name is exit 3 naming the Debian package. */
#include "testutil.h"

/* the names below are the real symbols (this test links the libraries), to compare the tables with */
#define DL_NO_REDIRECT 1
#include "base/dl.h"
#include "base/dl_archive.h"
#include "base/dl_curl.h"
#include "base/dl_ossl.h"

#define SAME(f) assert_ptr_equal(*(void **)&t->f, (void *)&f);

static void test_every_entry_is_the_library_function(void **state)
{
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(dl_open(&dl_curl, &err), 0);
	assert_int_equal(dl_open(&dl_archive, &err), 0);
	assert_int_equal(dl_open(&dl_crypto, &err), 0);
	assert_int_equal(dl_open(&dl_ssl, &err), 0);
	{
		const struct dl_curl_fns *t = &dl_curl_fn;
		DL_CURL_FNS(SAME)
	}
	{
		const struct dl_archive_fns *t = &dl_archive_fn;
		DL_ARCHIVE_FNS(SAME)
	}
	{
		const struct dl_crypto_fns *t = &dl_crypto_fn;
		DL_CRYPTO_FNS(SAME)
	}
	{
		const struct dl_ssl_fns *t = &dl_ssl_fn;
		DL_SSL_FNS(SAME)
	}
	assert_int_equal(dl_open(&dl_curl, &err), 0); /* a second open is a no-op */
}

static int resolve_nothing(void *handle, const char **missing)
{
	(void)handle;
	*missing = "hx_no_such_function";
	return -1;
}

static void test_an_absent_library_names_its_package(void **state)
{
	struct dl_lib lib = {"libhx-absent.so.7", "libhx-absent7", resolve_nothing, false};
	struct hx_err err = {0};

	(void)state;
	assert_true(dl_open(&lib, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_HOST);
	assert_non_null(strstr(err.msg, "needs libhx-absent.so.7 (the Debian package libhx-absent7)"));
	assert_false(lib.ready);
}

static void test_a_missing_symbol_is_named(void **state)
{
	/* libc is there; the resolver asks for a name it lacks */
	struct dl_lib lib = {"libc.so.6", "libc6", resolve_nothing, false};
	struct hx_err err = {0};

	(void)state;
	assert_true(dl_open(&lib, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_HOST);
	assert_non_null(strstr(err.msg, "libc.so.6 has no hx_no_such_function"));
	assert_false(lib.ready);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_entry_is_the_library_function),
		cmocka_unit_test(test_an_absent_library_names_its_package),
		cmocka_unit_test(test_a_missing_symbol_is_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
