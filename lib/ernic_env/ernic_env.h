/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_ENV_H
#define ERNIC_ENV_H

/**
 * @file
 * The environment of a program that runs net_ernic ports: the INI file
 * that gives its EAL arguments and vdevs, and the life of its ports
 * (start, link wait, close at exit). ernic-testpmd (`--config FILE`) and
 * the verbs provider (`SOFTERNIC_CONFIG=FILE`) read the same format:
 *
 *   [eal]          args   = EAL arguments, whitespace-separated
 *   [port.<name>]  vdev   = one vdev string (becomes --vdev=<vdev>)
 *   [test]         read by ernic-testpmd (its mode, flags, server)
 *   [verbs]        read by the verbs provider (doc/guides/verbs.rst)
 *
 * Every section is optional; a reader checks the sections it reads and
 * leaves the other reader's section alone, so that one file may serve
 * both. The configuration part is pure code (no EAL): it runs before
 * rte_eal_init(). Every error is one line that names the file, and the
 * section and key when there is one.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Sizes (the name and value sizes are rte_cfgfile's CFG_NAME_LEN/CFG_VALUE_LEN). */
enum {
	ERNIC_ENV_NAME_LEN = 64,
	ERNIC_ENV_VALUE_LEN = 256,
	ERNIC_ENV_PATH_LEN = 1024,
	ERNIC_ENV_MAX_PORTS = 16,	/**< [port.*] sections */
	ERNIC_ENV_MAX_ARGS = 64,	/**< words of one args value */
	ERNIC_ENV_MAX_ARGV = 512,	/**< built argument vectors */
	ERNIC_ENV_ARGV_BUF = 8192,
	ERNIC_ENV_MAX_KEYS = 16,	/**< keys of one reader's section */
};

/** A [port.<name>] section. */
struct ernic_env_port {
	char name[ERNIC_ENV_NAME_LEN];		/**< <name> */
	char vdev[ERNIC_ENV_VALUE_LEN];		/**< vdev = */
};

/** The common part of a loaded and checked file. */
struct ernic_env_config {
	char path[ERNIC_ENV_PATH_LEN];
	bool has_eal;				/**< [eal] present */
	char eal_args[ERNIC_ENV_VALUE_LEN];	/**< [eal] args */
	unsigned int nb_ports;
	struct ernic_env_port ports[ERNIC_ENV_MAX_PORTS];
};

/** One key of a reader's section: where its value is copied. */
struct ernic_env_key {
	const char *name;
	size_t off;		/**< offset of the value in the reader's struct */
	size_t size;		/**< room there, with the terminating NUL */
	bool required;		/**< missing key: an error */
	bool nonempty;		/**< empty value: an error */
};

/**
 * The section a reader takes from the file ("test" for ernic-testpmd,
 * "verbs" for the provider): its keys are copied as strings into
 * @c base at their offsets; the reader checks the values afterwards.
 */
struct ernic_env_section {
	const char *name;
	const struct ernic_env_key *keys;
	unsigned int nb_keys;		/**< at most ERNIC_ENV_MAX_KEYS */
	void *base;
	bool present;			/**< out: the section was in the file */
};

/** An argument vector built from a command line and a file. */
struct ernic_env_argv {
	int argc;
	char **argv;				/**< argv[argc] is NULL */
	char *store[ERNIC_ENV_MAX_ARGV + 1];
	char buf[ERNIC_ENV_ARGV_BUF];		/**< copies of words */
	size_t used;
};

/**
 * Load @p path into @p c and check its [eal] and [port.*] sections (one
 * vdev each, no device created twice) and, when @p sec is not NULL, the
 * reader's own section @p sec (unknown or repeated keys, missing required
 * keys, empty values). The sections of the other reader ([test] or
 * [verbs]) are not read; any other section is an error.
 *
 * @return 0, -ENOENT (cannot read the file), -ENOMEM or -EINVAL, with
 *   @p err set
 */
int ernic_env_config_load(const char *path, struct ernic_env_config *c,
			  struct ernic_env_section *sec, char *err,
			  size_t errlen);

/**
 * The EAL arguments: argv[0], then the command line's EAL arguments
 * (argv[1] .. argv[sep - 1]) or, when there are none, [eal] args, then
 * --vdev=<vdev> for each [port.*]. With @p c NULL: argv[0 .. sep - 1].
 *
 * @return 0 or -E2BIG with @p err set
 */
int ernic_env_eal_argv(const struct ernic_env_config *c, int sep,
		       char **argv, struct ernic_env_argv *out, char *err,
		       size_t errlen);

/** Split @p s (modified) at blanks into @p tok: the count or -E2BIG. */
int ernic_env_split_words(char *s, char **tok, int max);

/** Empty @p a. */
void ernic_env_argv_init(struct ernic_env_argv *a);

/** Append @p s (kept by the caller): 0 or -E2BIG. */
int ernic_env_argv_add(struct ernic_env_argv *a, char *s);

/** Append a copy of @p prefix followed by @p s: 0 or -E2BIG. */
int ernic_env_argv_add_copy(struct ernic_env_argv *a, const char *prefix,
			    const char *s);

/** Append copies of the blank-separated words of @p s: 0 or -E2BIG. */
int ernic_env_argv_add_words(struct ernic_env_argv *a, const char *s);

/* ------------------------------------------------------------------ */
/* Ports (after rte_eal_init())                                        */
/* ------------------------------------------------------------------ */

/** Name of the PMD, and the prefix of its vdevs' names. */
#define ERNIC_ENV_DRIVER "net_ernic"

/**
 * Whether every net_ernic vdev given to the EAL (--vdev, or a [port.*]
 * section) became a port. The EAL goes on when a vdev fails to probe
 * (bad devargs, a missing underlying port): the program would run with a
 * port less. The PMD logged why (log type pmd.net.ernic, level error).
 *
 * @param[out] name the name of the first vdev without a port (may be NULL)
 * @param len room at @p name
 * @return 0, or -ENODEV
 */
int ernic_env_check_probed(char *name, size_t len);

/** True when @p port_id is a net_ernic port. */
bool ernic_env_is_ernic(uint16_t port_id);

/**
 * The @p nth net_ernic port, in port id order.
 *
 * @return 0 with *@p port_id set, or -ENODEV
 */
int ernic_env_port_nth(unsigned int nth, uint16_t *port_id);

/**
 * Configure and start net_ernic port @p port_id with one queue each way
 * (the port's own queues carry the application's non-RoCE frames; the
 * RoCE traffic is the workers'), unless it runs already.
 *
 * @return 0 or a negative errno of ethdev
 */
int ernic_env_port_start(uint16_t port_id);

/**
 * Wait until the link of @p port_id is up (a memif pair connects through
 * its control socket in the background), at most @p ms milliseconds,
 * running the port's workers meanwhile.
 *
 * @return 0, or -ETIMEDOUT when the link is still down
 */
int ernic_env_port_wait_link(uint16_t port_id, unsigned int ms);

/**
 * Stop and close every port: the net_ernic ports first, then the ports
 * they gave back (DPDK 22.11's rte_eal_cleanup() closes none), letting
 * memif peers in this process see their disconnects in between.
 */
void ernic_env_close_all(void);

/** Path MTU code (enum roce_mtu) of the port's pmtu= devarg. */
enum roce_mtu ernic_env_port_mtu_code(uint16_t port_id);

/**
 * Resolve the MAC of @p gid through the port's neighbour table, calling
 * @p progress(@p arg) between tries (it runs the port: the answer comes
 * in through the workers), for at most @p timeout_ms milliseconds or until
 * *@p quit becomes non-zero.
 *
 * @return 0, -ETIMEDOUT, -EINTR, or an error of rte_pmd_ernic_resolve()
 */
int ernic_env_resolve(uint16_t port_id, const union roce_gid *gid,
		      uint8_t mac[6], unsigned int timeout_ms,
		      void (*progress)(void *), void *arg,
		      volatile int *quit);

#ifdef __cplusplus
}
#endif

#endif /* ERNIC_ENV_H */
