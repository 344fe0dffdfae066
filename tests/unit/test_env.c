/* Sizes with suffixes, and every bad value named with its variable. */
#include <stdlib.h>

#include "capture.h"
#include "util/env.h"

static void sizes(void)
{
	char why[256];
	uint64_t v;

	CHECK_OK(sc_parse_size("65536", &v, why, sizeof(why)));
	CHECK_EQ(v, 65536);
	CHECK_OK(sc_parse_size("512m", &v, why, sizeof(why)));
	CHECK_EQ(v, 512ull << 20);
	CHECK_OK(sc_parse_size("2G", &v, why, sizeof(why)));
	CHECK_EQ(v, 2ull << 30);
	CHECK_OK(sc_parse_size("4kb", &v, why, sizeof(why)));
	CHECK_EQ(v, 4096);
	CHECK_OK(sc_parse_size("1T", &v, why, sizeof(why)));
	CHECK_EQ(v, 1ull << 40);
	CHECK_ERR(sc_parse_size("", &v, why, sizeof(why)), EINVAL);
	CHECK_ERR(sc_parse_size("-1", &v, why, sizeof(why)), EINVAL);
	CHECK_ERR(sc_parse_size("12q", &v, why, sizeof(why)), EINVAL);
	CHECK_CONTAINS(why, "'12q' is not a size");
	CHECK_ERR(sc_parse_size("1.5g", &v, why, sizeof(why)), EINVAL);
	CHECK_ERR(sc_parse_size("99999999999999999999", &v, why, sizeof(why)), EINVAL);
	CHECK_ERR(sc_parse_size("20000000000000000t", &v, why, sizeof(why)), EINVAL);
	CHECK_CONTAINS(why, "overflows");
}

static void env_values(void)
{
	struct capture cap;
	uint64_t size;
	double seconds;
	long n;

	unsetenv("SC_TEST_SIZE");
	CHECK_OK(sc_env_size("SC_TEST_SIZE", 7, 1, 100, &size));
	CHECK_EQ(size, 7);
	setenv("SC_TEST_SIZE", "1k", 1);
	capture_start(&cap);
	CHECK_ERR(sc_env_size("SC_TEST_SIZE", 7, 1, 100, &size), EINVAL);
	CHECK_CONTAINS(capture_end(&cap), "SC_TEST_SIZE=1k (1024 bytes) is outside 1..100 bytes");
	setenv("SC_TEST_SIZE", "lots", 1);
	capture_start(&cap);
	CHECK_ERR(sc_env_size("SC_TEST_SIZE", 7, 1, 100, &size), EINVAL);
	CHECK_CONTAINS(capture_end(&cap), "SC_TEST_SIZE=lots: 'lots' is not a size");

	setenv("SC_TEST_N", "12x", 1);
	capture_start(&cap);
	CHECK_ERR(sc_env_long("SC_TEST_N", 0, 0, 10, &n), EINVAL);
	CHECK_CONTAINS(capture_end(&cap), "SC_TEST_N=12x is not a whole number in 0..10");
	setenv("SC_TEST_N", "9", 1);
	CHECK_OK(sc_env_long("SC_TEST_N", 0, 0, 10, &n));
	CHECK_EQ(n, 9);

	setenv("SC_TEST_T", "2.5", 1);
	CHECK_OK(sc_env_seconds("SC_TEST_T", 1, &seconds));
	CHECK(seconds == 2.5);
	setenv("SC_TEST_T", "0", 1);
	capture_start(&cap);
	CHECK_ERR(sc_env_seconds("SC_TEST_T", 1, &seconds), EINVAL);
	CHECK_CONTAINS(capture_end(&cap), "SC_TEST_T=0 is not a number of seconds");
}

int main(void)
{
	sizes();
	env_values();
	return 0;
}
