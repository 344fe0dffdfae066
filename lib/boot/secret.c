#include "boot/secret.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/env.h"
#include "util/log.h"

static void key_of(struct sc_secret *secret, const void *bytes, size_t len)
{
	struct sc_sha256 s;

	sc_sha256_init(&s);
	sc_sha256_update(&s, bytes, len);
	sc_sha256_final(&s, secret->key);
}

/* 0, or -errno; a file others may read, or too short, is refused */
static int read_file(struct sc_secret *secret, const char *path)
{
	char bytes[4096];
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077)) {
		sc_error("the job secret %s must be a regular file of this user (uid %d) that no one else may read or write (it is mode %04o, owner %d): chmod 600 it",
			 path, (int)geteuid(), (unsigned int)(st.st_mode & 07777), (int)st.st_uid);
		close(fd);
		return -EPERM;
	}
	n = read(fd, bytes, sizeof(bytes));
	close(fd);
	if (n < SC_SECRET_MIN) {
		sc_error("the job secret %s has %zd bytes; it needs at least %d", path, n,
			 SC_SECRET_MIN);
		return -EINVAL;
	}
	key_of(secret, bytes, (size_t)n);
	snprintf(secret->source, sizeof(secret->source), "%s", path);
	return 0;
}

/*
 * Makes @path with 32 random bytes (as hex) where it is missing. Made under
 * a temporary name and linked into place: of processes that race, on one
 * node or on a shared home, one file wins and the others read it.
 */
static int make_file(const char *path)
{
	char temp[PATH_MAX + 32], dir[PATH_MAX], text[65];
	uint8_t random[32];
	int fd, err = 0;
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST)
			return -errno;
	}
	if (getrandom(random, sizeof(random), 0) != sizeof(random))
		return -EIO;
	for (int i = 0; i < 32; i++)
		snprintf(text + 2 * i, 3, "%02x", random[i]);
	snprintf(temp, sizeof(temp), "%s.%d", path, (int)getpid());
	fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, text, 64) != 64 || fsync(fd))
		err = -errno;
	close(fd);
	if (!err && link(temp, path) && errno != EEXIST)
		err = -errno;
	unlink(temp);
	return err;
}

int sc_secret_find(struct sc_secret *secret)
{
	const char *text = sc_env_string("SHMEMCOMM_JOB_SECRET");
	const char *file = sc_env_string("SHMEMCOMM_SECRET_FILE");
	const char *home = getenv("HOME");
	char path[PATH_MAX];
	int err;

	memset(secret, 0, sizeof(*secret));
	if (text) {
		if (strlen(text) < SC_SECRET_MIN) {
			sc_error("SHMEMCOMM_JOB_SECRET has %zu characters; a secret needs at least %d",
				 strlen(text), SC_SECRET_MIN);
			return -EINVAL;
		}
		key_of(secret, text, strlen(text));
		snprintf(secret->source, sizeof(secret->source), "SHMEMCOMM_JOB_SECRET");
		return 0;
	}
	if (file) {
		err = read_file(secret, file);
		if (err == -ENOENT || err == -EACCES)
			sc_error("SHMEMCOMM_SECRET_FILE=%s cannot be read: %s", file, strerror(-err));
		return err;
	}
	if (!home || !*home) {
		sc_error("no job secret: HOME is unset, so there is no ~/.shmemcomm/secret; set SHMEMCOMM_JOB_SECRET (the same on every rank) or SHMEMCOMM_SECRET_FILE");
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/.shmemcomm/secret", home);
	err = read_file(secret, path);
	if (err == -ENOENT) {
		err = make_file(path);
		if (!err) {
			sc_debug("made the job secret %s", path);
			err = read_file(secret, path);
		} else {
			sc_error("no job secret: %s cannot be made (%s); set SHMEMCOMM_JOB_SECRET (the same on every rank) or SHMEMCOMM_SECRET_FILE",
				 path, strerror(-err));
		}
	} else if (err == -EACCES) {
		sc_error("the job secret %s cannot be read: %s", path, strerror(-err));
	}
	return err;
}

int sc_secret_make(struct sc_secret *secret, char *text, size_t len, const char *source)
{
	uint8_t random[64];

	if (len > sizeof(random) || getrandom(random, len, 0) != (ssize_t)len)
		return -EIO;
	for (size_t i = 0; i < len; i++)
		snprintf(text + 2 * i, 3, "%02x", random[i]);
	sc_secret_of_text(secret, text, source);
	return 0;
}

void sc_secret_of_text(struct sc_secret *secret, const char *text, const char *source)
{
	key_of(secret, text, strlen(text));
	snprintf(secret->source, sizeof(secret->source), "%s", source);
}
