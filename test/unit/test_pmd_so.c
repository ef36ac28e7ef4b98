/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loadable driver: this program links DPDK only, not libernic (it
 * takes libroce's headers for the types and calls the driver's exported
 * functions through dlsym()). EAL loads librte_net_ernic.so (-d, from
 * test/meson.build) and probes
 * --vdev=net_ring0 --vdev=net_ernic0,port=net_ring0,... as a stock DPDK
 * application (dpdk-testpmd) would. The worker runs as a DPDK service,
 * iterated here on the main lcore.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ring.h>
#include <rte_service.h>

#include "roce_opcode.h"
#include "roce_verbs.h"

#include "test_common.h"

static void
test_loaded_driver(void)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	struct rte_mbuf *m, *rx[4];
	uint16_t ern, ring, pid;
	uint32_t sid;
	uint8_t f[64];
	bool ring_visible = false;
	struct rte_ring *q0, *q1;
	uint64_t id;
	void *obj = NULL;
	int i, n = 0;

	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_ernic0", &ern) == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_ring0", &ring) == 0);
	RTE_ETH_FOREACH_DEV(pid)
		if (pid == ring)
			ring_visible = true;
	CU_ASSERT(!ring_visible);
	CU_ASSERT(rte_eth_dev_info_get(ern, &info) == 0);
	CU_ASSERT(strcmp(info.driver_name, "net_ernic") == 0);
	CU_ASSERT(rte_eth_xstats_get_id_by_name(ern, "rx_roce", &id) == 0);

	memset(&conf, 0, sizeof(conf));
	CU_ASSERT_FATAL(rte_eth_dev_configure(ern, 1, 1, &conf) == 0);
	CU_ASSERT_FATAL(rte_eth_rx_queue_setup(ern, 0, 512, 0, NULL,
					       test_mbuf_pool()) == 0);
	CU_ASSERT_FATAL(rte_eth_tx_queue_setup(ern, 0, 512, 0, NULL) == 0);
	CU_ASSERT_FATAL(rte_eth_dev_start(ern) == 0);
	CU_ASSERT_FATAL(rte_service_get_by_name("net_ernic0_w0", &sid) == 0);

	/*
	 * net_ring0 made from devargs has 16 queues, each looping TX to RX
	 * through ring ETH_RXTX<i>_net_ring0. One worker reads queue 0; the
	 * application's tx_burst has queue 1 to itself (the spare queue).
	 */
	q0 = rte_ring_lookup("ETH_RXTX0_net_ring0");
	q1 = rte_ring_lookup("ETH_RXTX1_net_ring0");
	CU_ASSERT_FATAL(q0 != NULL && q1 != NULL);
	memset(f, 0x5a, sizeof(f));
	memcpy(f, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x99\x88\xb5", 14);

	/* wire -> worker -> the port's rx_burst */
	m = test_mbuf_from(f, sizeof(f), 0);
	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_FATAL(rte_ring_enqueue(q0, m) == 0);
	for (i = 0; i < 8 && n == 0; i++) {
		CU_ASSERT(rte_service_run_iter_on_app_lcore(sid, 1) == 0);
		n = rte_eth_rx_burst(ern, 0, rx, 4);
	}
	CU_ASSERT_FATAL(n == 1);
	CU_ASSERT(rte_pktmbuf_pkt_len(rx[0]) == sizeof(f));
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(rx[0], void *), f, sizeof(f)) == 0);

	/* tx_burst -> the spare underlying queue, untouched */
	CU_ASSERT_FATAL(rte_eth_tx_burst(ern, 0, rx, 1) == 1);
	CU_ASSERT_FATAL(rte_ring_dequeue(q1, &obj) == 0);
	m = obj;
	CU_ASSERT(rte_pktmbuf_pkt_len(m) == sizeof(f));
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, void *), f, sizeof(f)) == 0);
	rte_pktmbuf_free(m);

	CU_ASSERT(rte_eth_dev_stop(ern) == 0);
	CU_ASSERT(rte_eth_dev_close(ern) == 0);
	ring_visible = false;
	RTE_ETH_FOREACH_DEV(pid)
		if (pid == ring)
			ring_visible = true;
	CU_ASSERT(ring_visible);
}

static char safe_dir[PATH_MAX], safe_so[PATH_MAX];

/*
 * The driver as a program that links it sees it: the functions of the
 * installed headers resolve (rte_pmd_*.h, and libroce's, which the driver
 * carries), the others do not (version.map: local: *).
 */
static void
test_exported_api(void)
{
	struct roce_device *(*get_device)(uint16_t);
	const char *(*opcode_name)(uint8_t);
	int (*nb_workers)(uint16_t);
	uint16_t ern;
	void *h;

	CU_ASSERT_FATAL(safe_so[0] != '\0');
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_ernic0", &ern) == 0);
	h = dlopen(safe_so, RTLD_NOW | RTLD_NOLOAD);
	CU_ASSERT_FATAL(h != NULL);
	*(void **)&nb_workers = dlsym(h, "rte_pmd_ernic_nb_workers");
	*(void **)&get_device = dlsym(h, "rte_pmd_ernic_get_device");
	*(void **)&opcode_name = dlsym(h, "roce_opcode_name");
	CU_ASSERT_FATAL(nb_workers != NULL && get_device != NULL &&
			opcode_name != NULL);
	CU_ASSERT(nb_workers(ern) == 1);
	CU_ASSERT(nb_workers(RTE_MAX_ETHPORTS - 1) == -ENODEV);
	/* not started yet: no device */
	CU_ASSERT(get_device(ern) == NULL && rte_errno == EAGAIN);
	CU_ASSERT_STRING_EQUAL(opcode_name(ROCE_OP_RC_SEND_ONLY),
			       "RC_SEND_ONLY");
	/* the PMD's and the transport's insides stay inside */
	CU_ASSERT(dlsym(h, "ernic_port_get") == NULL);
	CU_ASSERT(dlsym(h, "ernic_classify") == NULL);
	CU_ASSERT(dlsym(h, "roce_worker_qp_detach") == NULL);
	dlclose(h);
}

static CU_TestInfo so_tests[] = {
	/* first: the port is closed at the end of the next one */
	{ "librte_net_ernic.so exports its public API only", test_exported_api },
	{ "librte_net_ernic.so probes, runs and closes", test_loaded_driver },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "pmd_so", NULL, NULL, NULL, NULL, so_tests },
	CU_SUITE_INFO_NULL,
};

/*
 * EAL refuses to load a driver from a directory that is, or has a parent
 * that is, world-writable (a build tree under /tmp, say). Copy the driver
 * into a fresh private directory whose ancestors are all safe.
 */
static bool
path_is_safe(const char *dir)
{
	char p[PATH_MAX], *slash;
	struct stat st;

	if (realpath(dir, p) == NULL)
		return false;
	for (;;) {
		if (stat(p, &st) != 0 || (st.st_mode & S_IWOTH))
			return false;
		slash = strrchr(p, '/');
		if (slash == NULL || slash == p)
			break;
		*slash = '\0';
	}
	return stat("/", &st) == 0 && !(st.st_mode & S_IWOTH);
}

static int
copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in, out, ret = 0;

	in = open(from, O_RDONLY);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			ret = -EIO;
			break;
		}
	if (n < 0)
		ret = -errno;
	close(in);
	close(out);
	return ret;
}

static int
relocate_driver(int argc, char **argv)
{
	const char *cands[] = { getenv("XDG_RUNTIME_DIR"), getenv("HOME"),
				"/run", "/root" };
	const char *base;
	unsigned int i;
	int a;

	for (a = 1; a + 1 < argc; a++)
		if (strcmp(argv[a], "-d") == 0)
			break;
	if (a + 1 >= argc)
		return 0;
	for (i = 0; i < RTE_DIM(cands); i++) {
		if (cands[i] == NULL || !path_is_safe(cands[i]))
			continue;
		snprintf(safe_dir, sizeof(safe_dir), "%s/.softernic-so-XXXXXX",
			 cands[i]);
		if (mkdtemp(safe_dir) != NULL)
			break;
		safe_dir[0] = '\0';
	}
	if (safe_dir[0] == '\0') {
		fprintf(stderr, "no directory without world-writable parents for the driver\n");
		return -EACCES;
	}
	base = strrchr(argv[a + 1], '/');
	snprintf(safe_so, sizeof(safe_so), "%s/%s", safe_dir,
		 base ? base + 1 : argv[a + 1]);
	if (copy_file(argv[a + 1], safe_so) != 0) {
		fprintf(stderr, "cannot copy %s to %s\n", argv[a + 1], safe_so);
		rmdir(safe_dir);
		return -EIO;
	}
	argv[a + 1] = safe_so;
	return 0;
}

int
main(int argc, char **argv)
{
	int ret;

	if (relocate_driver(argc, argv) != 0)
		return 2;
	ret = test_eal_init(argc, argv) != 0 ? 2 : test_run(suites);
	if (safe_so[0] != '\0') {
		unlink(safe_so);
		rmdir(safe_dir);
	}
	return ret;
}
