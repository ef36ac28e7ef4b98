/* SPDX-License-Identifier: BSD-3-Clause */
#include "test_common.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

static struct rte_mempool *pool;

int
test_eal_init(int argc, char **argv)
{
	char *args[32];
	int n = 0, i, ret;

	args[n++] = argc > 0 ? argv[0] : (char *)"test";
	args[n++] = (char *)"--no-huge";
	args[n++] = (char *)"-m";
	args[n++] = (char *)"512";
	args[n++] = (char *)"--no-pci";
	args[n++] = (char *)"--no-shconf";
	args[n++] = (char *)"--log-level=lib.eal:error";
	args[n++] = (char *)"-l";
	args[n++] = (char *)"0";
	for (i = 1; i < argc && n < (int)RTE_DIM(args); i++)
		args[n++] = argv[i];
	ret = rte_eal_init(n, args);
	if (ret < 0) {
		fprintf(stderr, "rte_eal_init failed: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

int
test_eal_init_pa(const char *prog)
{
	char *args[] = {
		(char *)prog, (char *)"--no-shconf", (char *)"--huge-unlink",
		(char *)"--iova-mode=pa", (char *)"--no-pci",
		(char *)"--no-telemetry", (char *)"--log-level=lib.eal:error",
		(char *)"-l", (char *)"0",
	};

	if (rte_eal_init((int)RTE_DIM(args), args) < 0) {
		printf("no EAL with IOVA as PA: %s (root and free huge pages needed)\n",
		       rte_strerror(rte_errno));
		return -1;
	}
	if (rte_eal_iova_mode() != RTE_IOVA_PA) {
		printf("no EAL with IOVA as PA: EAL chose IOVA as VA\n");
		rte_eal_cleanup();
		return -1;
	}
	return 0;
}

struct rte_mempool *
test_mbuf_pool(void)
{
	if (pool == NULL)
		pool = rte_pktmbuf_pool_create("test_pool", 8191, 256, 0,
					       RTE_MBUF_DEFAULT_BUF_SIZE + 8192,
					       SOCKET_ID_ANY);
	return pool;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
test_load_vectors(const char *file, struct test_vector **out)
{
	const char *dir = getenv("SOFTERNIC_VECTORS");
	char path[1024], *line = NULL, *sp;
	size_t cap = 0, hexlen, i;
	struct test_vector *v = NULL;
	int n = 0, max = 0;
	FILE *f;

	if (dir == NULL)
		dir = "../shared/vectors";
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, "cannot open vectors %s: %s\n", path,
			strerror(errno));
		return -errno;
	}
	while (getline(&line, &cap, f) > 0) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		sp = strchr(line, ' ');
		if (sp == NULL)
			continue;
		*sp++ = '\0';
		hexlen = strcspn(sp, " \r\n");
		if (n == max) {
			max = max ? max * 2 : 64;
			v = realloc(v, max * sizeof(*v));
			if (v == NULL)
				abort();
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", line);
		v[n].len = hexlen / 2;
		v[n].data = malloc(v[n].len + 1);
		if (v[n].data == NULL)
			abort();
		for (i = 0; i < v[n].len; i++) {
			int hi = hexval(sp[2 * i]), lo = hexval(sp[2 * i + 1]);

			if (hi < 0 || lo < 0) {
				fprintf(stderr, "%s: bad hex in %s\n", path,
					v[n].name);
				fclose(f);
				free(line);
				return -EINVAL;
			}
			v[n].data[i] = (uint8_t)(hi << 4 | lo);
		}
		n++;
	}
	free(line);
	fclose(f);
	*out = v;
	return n > 0 ? n : -ENOENT;
}

const struct test_vector *
test_find_vector(const struct test_vector *v, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

struct rte_mbuf *
test_mbuf_from(const void *data, size_t len, size_t seg_len)
{
	struct rte_mempool *mp = test_mbuf_pool();
	struct rte_mbuf *head = NULL, *m;
	const uint8_t *p = data;
	size_t off = 0, chunk;

	if (seg_len == 0)
		seg_len = len ? len : 1;
	do {
		chunk = RTE_MIN(seg_len, len - off);
		m = rte_pktmbuf_alloc(mp);
		if (m == NULL || chunk > rte_pktmbuf_tailroom(m)) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		memcpy(rte_pktmbuf_append(m, chunk), p + off, chunk);
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		off += chunk;
	} while (off < len);
	return head;
}

struct rte_mbuf *
test_mbuf_join(struct rte_mbuf *a, struct rte_mbuf *b)
{
	if (a == NULL || b == NULL || rte_pktmbuf_chain(a, b) != 0) {
		rte_pktmbuf_free(a);
		rte_pktmbuf_free(b);
		return NULL;
	}
	return a;
}

struct rte_mbuf *
test_mbuf_split(const void *data, size_t len, size_t split)
{
	const uint8_t *p = data;

	return test_mbuf_join(test_mbuf_from(p, split, 0),
			      test_mbuf_from(p + split, len - split, 0));
}

struct rte_mbuf *
test_mbuf_split3(const void *data, size_t len, size_t a, size_t b)
{
	const uint8_t *p = data;

	return test_mbuf_join(test_mbuf_split(p, b, a),
			      test_mbuf_from(p + b, len - b, 0));
}

int
test_port_start(uint16_t port)
{
	struct rte_eth_conf conf;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, 1024, 0, NULL,
					     test_mbuf_pool());
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, 1024, 0, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	return ret;
}

int
test_run(CU_SuiteInfo *suites)
{
	unsigned int failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	if (CU_register_suites(suites) != CUE_SUCCESS) {
		fprintf(stderr, "suite registration: %s\n", CU_get_error_msg());
		CU_cleanup_registry();
		return 2;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	rte_eal_cleanup();
	return failed ? 1 : 0;
}
