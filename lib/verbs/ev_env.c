/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The process environment of the verbs provider: SOFTERNIC_CONFIG, the
 * EAL inside the program, one verbs device per net_ernic port, and who
 * runs the ports' workers.
 *
 * Who runs the workers (doc/guides/verbs.rst, "Progress"):
 *
 *   application thread          progress thread (ev_progress_main)
 *   ibv_poll_cq() --drive-->    port  <--drive-- when no application
 *   (trylock, one iteration)          thread drove it for app_grace,
 *                                     spinning while there is work, then
 *                                     sleeping longer and longer (up to
 *                                     idle_sleep_us) on wake_fd, which
 *                                     posts and arms kick
 *
 * A program that polls its CQ runs the engines from its own thread and
 * the progress thread sleeps; a program that waits in the kernel (a
 * completion channel, a TCP socket, a memory flag) is served by the
 * progress thread. Both take the port's drive lock, so at most one
 * thread runs a port at a time; a control operation holds it for its
 * whole length (ev_port_hold()) and runs the port once itself, which
 * makes it the workers' polling thread: lib/roce then runs its control
 * requests inline instead of waiting for another thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_pause.h>

#include "ernic_env.h"
#include "ev_cm.h"
#include "ev_priv.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_cm.h"

struct ev_env ev_env = {
	.ctl = PTHREAD_MUTEX_INITIALIZER,
	.wake_fd = -1,
};

/* ------------------------------------------------------------------ */
/* Messages                                                           */
/* ------------------------------------------------------------------ */

/*
 * lib.verbs: the provider's lines (NOTICE and above by default; the
 * [eal] args may raise it, --log-level=lib.verbs:debug traces rdma_cm).
 * Before the EAL starts, rte_log writes to stderr too.
 */
RTE_LOG_REGISTER(ev_logtype, lib.verbs, NOTICE);

void
ev_log_level(uint32_t level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!rte_log_can_log((uint32_t)ev_logtype, level))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rte_log(level, (uint32_t)ev_logtype, "softernic verbs: %s\n", line);
}

/* ------------------------------------------------------------------ */
/* Threads that run ports                                             */
/* ------------------------------------------------------------------ */

/*
 * 0: not asked yet, 1: has an lcore id, -1: cannot have one. The library
 * is preloaded: its TLS is in the static block, no __tls_get_addr() call
 * on every poll.
 */
static __thread int ev_thread_state __attribute__((tls_model("initial-exec")));
static pthread_key_t ev_thread_key;

static void
ev_thread_exit(void *arg)
{
	(void)arg;
	rte_thread_unregister();
}

bool
ev_thread_can_drive(void)
{
	int *st = &ev_thread_state;

	if (likely(*st != 0))
		return *st > 0;
	if (rte_lcore_id() != LCORE_ID_ANY) {
		*st = 1;	/* an EAL thread */
		return true;
	}
	/*
	 * DPDK's per-lcore state (mempool caches, service run state)
	 * needs an lcore id: give this thread one for its life.
	 */
	if (rte_thread_register() != 0) {
		*st = -1;
		return false;
	}
	pthread_setspecific(ev_thread_key, (void *)1);
	*st = 1;
	return true;
}

void
ev_port_drive(struct ev_port *p)
{
	if (!p->self_driven || !ev_thread_can_drive())
		return;
	if (!ev_trylock(&p->drive))
		return;
	rte_pmd_ernic_poll(p->port_id);
	ev_unlock(&p->drive);
	/* a hint for the progress thread: a lost increment changes nothing */
	__atomic_store_n(&p->app_drives,
			 __atomic_load_n(&p->app_drives, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

void
ev_port_hold(struct ev_port *p)
{
	if (!p->self_driven || !ev_thread_can_drive())
		return;	/* lib/roce hands the control requests over */
	ev_lock(&p->drive);
	/* this thread becomes the workers' polling thread */
	rte_pmd_ernic_poll(p->port_id);
}

void
ev_port_release(struct ev_port *p)
{
	if (!p->self_driven || !ev_thread_can_drive())
		return;
	ev_unlock(&p->drive);
}

void
ev_port_step(void *port)
{
	struct ev_port *p = port;

	if (p->self_driven && ev_thread_can_drive())
		rte_pmd_ernic_poll(p->port_id);
	else
		rte_pause();
}

void
ev_env_kick(struct ev_port *p)
{
	const uint64_t one = 1;

	(void)p;
	if (__atomic_load_n(&ev_env.thread_sleeping, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(&ev_env.thread_sleeping, false,
				__ATOMIC_ACQ_REL) &&
	    write(ev_env.wake_fd, &one, sizeof(one)) != sizeof(one))
		return;	/* the eventfd is saturated: it wakes anyway */
}

/* Sleep on wake_fd for at most @p us microseconds; true when kicked. */
static bool
progress_sleep(uint32_t us)
{
	struct pollfd pfd = { .fd = ev_env.wake_fd, .events = POLLIN };
	struct timespec ts = {
		.tv_sec = us / 1000000,
		.tv_nsec = (long)(us % 1000000) * 1000,
	};
	uint64_t v;
	int n;

	__atomic_store_n(&ev_env.thread_sleeping, true, __ATOMIC_SEQ_CST);
	n = ppoll(&pfd, 1, &ts, NULL);
	__atomic_store_n(&ev_env.thread_sleeping, false, __ATOMIC_RELAXED);
	if (n > 0 && read(ev_env.wake_fd, &v, sizeof(v)) == sizeof(v))
		return true;
	return false;
}

static void *
ev_progress_main(void *arg)
{
	const uint64_t hz = ev_env.tsc_hz;
	const uint64_t spin = hz / 1000000 * ev_env.set.spin_us;
	const uint64_t pump_period = hz / 1000, cm_period = hz / 100000;
	uint64_t now, idle_since, next_pump = 0, next_cm = 0;
	uint32_t sleep_us = 1;
	unsigned int i;
	int work, r;

	(void)arg;
	if (!ev_thread_can_drive()) {
		ev_log("progress thread: no lcore id left (rte_thread_register: %s): the ports run only from the application's calls",
		       rte_strerror(rte_errno));
		return NULL;
	}
	idle_since = rte_rdtsc();
	while (!__atomic_load_n(&ev_env.stop, __ATOMIC_RELAXED)) {
		now = rte_rdtsc();
		work = 0;
		for (i = 0; i < ev_env.nb_ports; i++) {
			struct ev_port *p = &ev_env.port[i];

			uint64_t drives;

			if (now >= next_pump)
				ev_async_pump(p);
			if (!p->self_driven)
				continue;
			/* the application ran it since the last look: its turn */
			drives = __atomic_load_n(&p->app_drives,
						 __ATOMIC_RELAXED);
			if (drives != p->seen_drives) {
				p->seen_drives = drives;
				p->app_until = now + ev_env.app_grace_tsc;
			}
			if (now < p->app_until)
				continue;
			if (!ev_trylock(&p->drive))
				continue;
			r = rte_pmd_ernic_poll_work(p->port_id);
			ev_unlock(&p->drive);
			if (r > 0)
				work += r;
		}
		if (now >= next_pump)
			next_pump = now + pump_period;
		/* rdma_cm: the ports' CM events to their ids, every 10 us */
		if (now >= next_cm &&
		    __atomic_load_n(&ev_cm_ids, __ATOMIC_RELAXED) != 0) {
			ev_cm_pump_all();
			next_cm = now + cm_period;
		}
		if (work > 0 || ev_env.set.progress == EV_PROGRESS_SPIN) {
			idle_since = now;
			sleep_us = 1;
			continue;
		}
		if (now - idle_since < spin) {
			rte_pause();
			continue;
		}
		if (progress_sleep(sleep_us)) {
			/* posted work or an application about to wait */
			idle_since = rte_rdtsc();
			sleep_us = 1;
		} else if (sleep_us < ev_env.set.idle_sleep_us) {
			sleep_us = RTE_MIN(sleep_us * 2,
					   ev_env.set.idle_sleep_us);
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Start and stop                                                     */
/* ------------------------------------------------------------------ */

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static int start_result = 1;	/* 1: not started yet */

static void ev_env_stop(void);

/* The ports, as the PMD made them. */
static int
ports_open(void)
{
	struct rte_ether_addr mac;
	unsigned int i, k;
	uint16_t pid;
	int ret;

	for (k = 0; ernic_env_port_nth(k, &pid) == 0; k++) {
		struct ev_port *p;

		if (ev_env.nb_ports == EV_MAX_PORTS) {
			ev_log("more than %d net_ernic ports: the others are not used",
			       EV_MAX_PORTS);
			break;
		}
		ret = ernic_env_port_start(pid);
		if (ret != 0) {
			ev_log("port %u: cannot start: %s", pid,
			       rte_strerror(-ret));
			return ret;
		}
		p = &ev_env.port[ev_env.nb_ports];
		p->port_id = pid;
		p->index = (uint16_t)ev_env.nb_ports;
		ev_lock_init(&p->drive);
		pthread_mutex_init(&p->ctx_lock, NULL);
		p->rdev = rte_pmd_ernic_get_device(pid);
		if (p->rdev == NULL) {
			ev_log("port %u: no RoCE device: %s", pid,
			       rte_strerror(rte_errno));
			return -rte_errno;
		}
		if (rte_eth_macaddr_get(pid, &mac) == 0)
			memcpy(p->mac, mac.addr_bytes, 6);
		p->mtu = ernic_env_port_mtu_code(pid);
		for (i = 0; i < RTE_DIM(p->gid) &&
		     rte_pmd_ernic_gid(pid, i, &p->gid[i]) == 0; i++)
			;
		p->nb_gid = i;
		p->self_driven = true;
		for (i = 0; i < (unsigned int)rte_pmd_ernic_nb_workers(pid); i++)
			if (rte_pmd_ernic_worker_lcore(pid, (uint16_t)i) >= 0)
				p->self_driven = false;
		ev_device_init(p);
		ev_env.nb_ports++;
	}
	if (ev_env.nb_ports == 0) {
		ev_log("%s: no net_ernic port: add a [port.<name>] section with vdev = net_ernic0,port=...",
		       getenv("SOFTERNIC_CONFIG"));
		return -ENODEV;
	}
	/* links come up in the background (a memif pair connects) */
	for (i = 0; ev_env.set.link_wait_ms > 0 && i < ev_env.nb_ports; i++)
		if (ernic_env_port_wait_link(ev_env.port[i].port_id,
					     ev_env.set.link_wait_ms) != 0 &&
		    !ev_env.set.quiet)
			ev_log_level(RTE_LOG_WARNING, "ernic%u: link still down after %u ms (port state DOWN until it comes up)",
			       i, ev_env.set.link_wait_ms);
	return 0;
}

static int
eal_start(const struct ernic_env_config *c)
{
	struct ernic_env_argv eal;
	char err[512], *argv0[2] = { (char *)(uintptr_t)"softernic-verbs",
				     NULL };
	cpu_set_t cpus;
	bool have_cpus;
	int ret, out;

	ret = ernic_env_eal_argv(c, 1, argv0, &eal, err, sizeof(err));
	if (ret != 0) {
		ev_log("%s", err);
		return ret;
	}
	/* EAL messages go with the program's other errors, not to stdout */
	rte_openlog_stream(stderr);
	/* rte_eal_init() pins the calling thread to the main lcore */
	have_cpus = pthread_getaffinity_np(pthread_self(), sizeof(cpus),
					   &cpus) == 0;
	/* the EAL prints its usage on stdout: keep the program's clean */
	fflush(stdout);
	out = dup(STDOUT_FILENO);
	if (out >= 0)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	ret = rte_eal_init(eal.argc, eal.argv);
	if (out >= 0) {
		fflush(stdout);
		dup2(out, STDOUT_FILENO);
		close(out);
	}
	if (have_cpus)
		pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	if (ret < 0) {
		ev_log("%s: cannot start DPDK's EAL with [eal] args and the [port.*] vdevs: %s",
		       c->path, rte_strerror(rte_errno));
		return -(rte_errno != 0 ? rte_errno : EINVAL);
	}
	return 0;
}

static int
env_start(void)
{
	struct ernic_env_config c;
	const char *path = getenv("SOFTERNIC_CONFIG");
	char err[512];
	int ret;

	if (path == NULL || path[0] == '\0') {
		ev_log("SOFTERNIC_CONFIG is not set: it names the INI file of the net_ernic ports (doc/guides/verbs.rst)");
		return -ENODEV;
	}
	ret = ev_settings_load(path, &c, &ev_env.set, err, sizeof(err));
	if (ret != 0) {
		ev_log("%s", err);
		return ret;
	}
	ret = pthread_key_create(&ev_thread_key, ev_thread_exit);
	if (ret != 0)
		return -ret;
	ret = eal_start(&c);
	if (ret != 0)
		return ret;
	ev_env.tsc_hz = rte_get_tsc_hz();
	/* an application that drove a port within 100 us keeps it */
	ev_env.app_grace_tsc = ev_env.tsc_hz / 10000;
	ev_env.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ev_env.wake_fd < 0) {
		ret = -errno;
		ev_log("eventfd: %s", strerror(errno));
		return ret;
	}
	ret = ports_open();
	if (ret != 0)
		return ret;
	if (ev_env.set.progress != EV_PROGRESS_OFF) {
		ret = pthread_create(&ev_env.thread, NULL, ev_progress_main,
				     NULL);
		if (ret != 0) {
			ev_log("cannot start the progress thread: %s",
			       strerror(ret));
			return -ret;
		}
		pthread_setname_np(ev_env.thread, "ernic-verbs");
		ev_env.thread_started = true;
	}
	atexit(ev_env_stop);
	if (!ev_env.set.quiet)
		ev_log_level(RTE_LOG_NOTICE, "%s: %u device%s (ernic0%s), progress %s",
		       path, ev_env.nb_ports, ev_env.nb_ports > 1 ? "s" : "",
		       ev_env.nb_ports > 1 ? "..." : "",
		       ev_progress_name(ev_env.set.progress));
	return 0;
}

int
ev_env_start(void)
{
	int ret;

	pthread_mutex_lock(&start_lock);
	if (start_result == 1)
		start_result = env_start();
	ret = start_result;
	pthread_mutex_unlock(&start_lock);
	return ret;
}

/* Whether a connection of port @p p still waits for its DREP. */
static bool
port_closing(const struct ev_port *p)
{
	struct roce_counter c[128];
	int n, i;

	n = rte_pmd_ernic_cm_counters(p->port_id, c, RTE_DIM(c));
	for (i = 0; i < RTE_MIN(n, (int)RTE_DIM(c)); i++)
		if (strcmp(c[i].name, "cm_ids_closing") == 0)
			return c[i].value != 0;
	return false;
}

/*
 * At exit, the disconnects the program made are carried out first: a
 * kernel CM sends the DREQ and its retries after the process is gone, a
 * process that carries its CM does it before it goes, or the peer never
 * learns (rping's server waits for the client's DREQ). Bounded by
 * EV_EXIT_CLOSE_MS: a peer that does not answer is not waited for.
 */
#define EV_EXIT_CLOSE_MS 1000

static void
ports_finish_closing(void)
{
	uint64_t end = rte_get_tsc_cycles() +
		rte_get_tsc_hz() / 1000 * EV_EXIT_CLOSE_MS;
	unsigned int i;
	bool busy;

	if (ev_env.nb_ports == 0)
		return;
	do {
		busy = false;
		for (i = 0; i < ev_env.nb_ports; i++) {
			struct ev_port *p = &ev_env.port[i];

			if (!port_closing(p))
				continue;
			busy = true;
			if (ev_env.thread_started)
				ev_env_kick(p);
			else
				ev_port_drive(p);
		}
		if (busy && ev_env.thread_started)
			usleep(100);
	} while (busy && rte_get_tsc_cycles() < end);
}

/*
 * Then the ports run a little longer: the frames the program posted last
 * are still in the underlying port's TX ring (a memif ring lives in the
 * processes' shared memory and goes with them), and the peer's last
 * requests still want their ACKs. A NIC keeps doing this after the
 * process exits; here the process stays [verbs] exit_linger_ms for it.
 */
static void
ports_linger(void)
{
	uint64_t end = rte_get_tsc_cycles() +
		rte_get_tsc_hz() / 1000 * ev_env.set.exit_linger_ms;
	unsigned int i;

	if (ev_env.nb_ports == 0 || ev_env.set.exit_linger_ms == 0)
		return;
	while (rte_get_tsc_cycles() < end) {
		for (i = 0; i < ev_env.nb_ports; i++) {
			if (ev_env.thread_started)
				ev_env_kick(&ev_env.port[i]);
			else
				ev_port_drive(&ev_env.port[i]);
		}
		if (ev_env.thread_started)
			usleep(1000);
	}
}

/*
 * [verbs] exit_stats = 1: each port's counters that moved, logged before
 * the ports close (the per-worker ones show how the QPs spread), a line
 * a port at NOTICE.
 */
static void
ports_log_stats(void)
{
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *xs = NULL;
	char line[1024];
	unsigned int i;
	int n, k, j;
	size_t len;

	for (i = 0; ev_env.set.exit_stats && i < ev_env.nb_ports; i++) {
		n = rte_eth_xstats_get(ev_env.port[i].port_id, NULL, 0);
		if (n <= 0)
			continue;
		names = calloc((size_t)n, sizeof(*names));
		xs = calloc((size_t)n, sizeof(*xs));
		if (names == NULL || xs == NULL ||
		    rte_eth_xstats_get_names(ev_env.port[i].port_id, names,
					     (unsigned int)n) != n ||
		    (k = rte_eth_xstats_get(ev_env.port[i].port_id, xs,
					    (unsigned int)n)) != n) {
			ev_log("ernic%u: cannot read its counters", i);
			free(names);
			free(xs);
			continue;
		}
		len = (size_t)snprintf(line, sizeof(line), "ernic%u:", i);
		for (j = 0; j < k; j++) {
			if (xs[j].value == 0 || xs[j].id >= (uint64_t)n)
				continue;
			if (len + strlen(names[xs[j].id].name) + 24 >= sizeof(line)) {
				ev_log_level(RTE_LOG_NOTICE, "%s", line);
				len = (size_t)snprintf(line, sizeof(line),
						       "ernic%u:", i);
			}
			len += (size_t)snprintf(line + len, sizeof(line) - len,
						" %s=%" PRIu64,
						names[xs[j].id].name,
						xs[j].value);
		}
		ev_log_level(RTE_LOG_NOTICE, "%s", line);
		free(names);
		free(xs);
	}
}

static void
ev_env_stop(void)
{
	ports_finish_closing();
	ports_linger();
	ports_log_stats();
	if (ev_env.thread_started) {
		__atomic_store_n(&ev_env.stop, true, __ATOMIC_RELEASE);
		ev_env_kick(NULL);
		pthread_join(ev_env.thread, NULL);
		ev_env.thread_started = false;
	}
	ev_contexts_close_all();
	ernic_env_close_all();
	rte_eal_cleanup();
}
