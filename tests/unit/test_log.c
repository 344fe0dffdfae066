/* SHMEMCOMM_LOG sets the threshold; a bad value is named, not ignored. */
#include <stdlib.h>

#include "capture.h"
#include "util/log.h"

static void threshold_from_environment(void)
{
	unsetenv("SHMEMCOMM_LOG");
	CHECK_EQ(sc_log_threshold(), SC_LOG_WARN);
	setenv("SHMEMCOMM_LOG", "debug", 1);
	CHECK_EQ(sc_log_threshold(), SC_LOG_DEBUG);
	setenv("SHMEMCOMM_LOG", "info", 1);
	CHECK_EQ(sc_log_threshold(), SC_LOG_INFO);
	setenv("SHMEMCOMM_LOG", "error", 1);
	CHECK_EQ(sc_log_threshold(), SC_LOG_ERROR);
}

static void messages_below_threshold_are_dropped(void)
{
	struct capture cap;
	const char *text;

	setenv("SHMEMCOMM_LOG", "warn", 1);
	capture_start(&cap);
	sc_info("hidden %d", 1);
	sc_error("shown %d", 2);
	text = capture_end(&cap);
	CHECK(!strstr(text, "hidden"));
	CHECK_CONTAINS(text, "shmemcomm: error: shown 2\n");
}

static void bad_value_is_named(void)
{
	struct capture cap;
	const char *text;

	setenv("SHMEMCOMM_LOG", "loud", 1);
	capture_start(&cap);
	CHECK_EQ(sc_log_threshold(), SC_LOG_WARN);
	text = capture_end(&cap);
	CHECK_CONTAINS(text, "SHMEMCOMM_LOG='loud'");
	CHECK_CONTAINS(text, "error, warn, info, debug");
}

int main(void)
{
	threshold_from_environment();
	messages_below_threshold_are_dropped();
	bad_value_is_named();
	return 0;
}
