/* Logging for libshmemcomm: one line per message, prefixed "shmemcomm: ". */
#ifndef SHMEMCOMM_UTIL_LOG_H
#define SHMEMCOMM_UTIL_LOG_H

enum sc_log_level {
	SC_LOG_ERROR = 0,
	SC_LOG_WARN = 1,
	SC_LOG_INFO = 2,
	SC_LOG_DEBUG = 3,
};

/*
 * The threshold, from SHMEMCOMM_LOG (error|warn|info|debug); unset, debug
 * where OpenSHMEM's SHMEM_DEBUG (or SMA_DEBUG) is set and not 0, else warn.
 */
enum sc_log_level sc_log_threshold(void);

__attribute__((format(printf, 2, 3)))
void sc_log(enum sc_log_level level, const char *fmt, ...);

/* The words of the last error logged (not its prefix), "" if none. */
const char *sc_log_last_error(void);

#define sc_error(...) sc_log(SC_LOG_ERROR, __VA_ARGS__)
#define sc_warn(...) sc_log(SC_LOG_WARN, __VA_ARGS__)
#define sc_info(...) sc_log(SC_LOG_INFO, __VA_ARGS__)
#define sc_debug(...) sc_log(SC_LOG_DEBUG, __VA_ARGS__)

#endif
