/* The listener check's reading of /proc/net/tcp and tcp6: which sockets listen on a port, with their inode
 * and uid, from the kernel's text. */
#include "testutil.h"

#include "run/owner.h"

static const char tcp4[] =
	"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	"   0: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000 2147479552        0 41234 1 "
	"0000000000000000 100 0 0 10 0\n"
	"   1: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000 2147479555        0 41240 1 "
	"0000000000000000 100 0 0 10 0\n"
	/* a connection to the port, established: not a listener */
	"   2: 0100007F:0BB8 0100007F:9C40 01 00000000:00000000 00:00000000 00000000 2147479552        0 41300 1 "
	"0000000000000000 20 4 30 10 -1\n"
	/* a listener on another port */
	"   3: 0100007F:D828 00000000:0000 0A 00000000:00000000 00:00000000 00000000 2147479555        0 41250 1 "
	"0000000000000000 100 0 0 10 0\n"
	/* TIME_WAIT: inode 0 */
	"   4: 0100007F:0BB8 0100007F:9C41 06 00000000:00000000 03:00000DA1 00000000     0        0 0 3 "
	"0000000000000000\n";

static const char tcp6[] =
	"  sl  local_address                         remote_address                        st tx_queue rx_queue tr "
	"tm->when retrnsmt   uid  timeout inode\n"
	"   0: 00000000000000000000000001000000:0BB8 00000000000000000000000000000000:0000 0A 00000000:00000000 "
	"00:00000000 00000000     0        0 51000 1 0000000000000000 100 0 0 10 0\n";

static void test_listeners_on_the_port_only(void **state)
{
	struct owner_listener l[OWNER_MAX_LISTENERS];
	size_t n = 0;

	(void)state;
	owner_parse_listeners(tcp4, 3000, l, &n);
	assert_int_equal(n, 2);
	assert_int_equal(l[0].inode, 41234);
	assert_int_equal(l[0].uid, 2147479552u);
	assert_int_equal(l[1].inode, 41240);
	assert_int_equal(l[1].uid, 2147479555u);
	owner_parse_listeners(tcp6, 3000, l, &n); /* appended */
	assert_int_equal(n, 3);
	assert_int_equal(l[2].inode, 51000);
	assert_int_equal(l[2].uid, 0);
}

static void test_nothing_on_another_port_or_in_garbage(void **state)
{
	struct owner_listener l[OWNER_MAX_LISTENERS];
	size_t n = 0;

	(void)state;
	owner_parse_listeners(tcp4, 8080, l, &n);
	assert_int_equal(n, 0);
	owner_parse_listeners("", 3000, l, &n);
	owner_parse_listeners("   0: 0100007F:0BB8 00000000:0000 0A\n", 3000, l, &n); /* cut short */
	owner_parse_listeners("garbage\n\n\n", 3000, l, &n);
	assert_int_equal(n, 0);
}

static void test_listeners_capped(void **state)
{
	struct owner_listener l[OWNER_MAX_LISTENERS];
	size_t n = 0;

	(void)state;
	for (int i = 0; i < OWNER_MAX_LISTENERS + 5; i++)
		owner_parse_listeners(tcp4, 3000, l, &n);
	assert_int_equal(n, OWNER_MAX_LISTENERS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listeners_on_the_port_only),
		cmocka_unit_test(test_nothing_on_another_port_or_in_garbage),
		cmocka_unit_test(test_listeners_capped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
