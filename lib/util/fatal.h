/*
 * The fatal-error path of every layer: one message, then the hook, then
 * _exit. The hook is how the job hears of it (core/abort.c installs one
 * that tells the node's PEs and the NIC's peers to stop); the layers that
 * end a job never need to know who is told.
 */
#ifndef SHMEMCOMM_UTIL_FATAL_H
#define SHMEMCOMM_UTIL_FATAL_H

/* Called with the exit status after the message, before _exit; NULL for none. */
void sc_fatal_set_hook(void (*hook)(int status));

/* Logs, runs the hook, and exits with @status. */
__attribute__((noreturn, format(printf, 2, 3)))
void sc_fatal(int status, const char *fmt, ...);

#endif
